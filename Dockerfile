# One image for every part; the Deployment's args pick the part
# (deploy/k8s). Built by CI elsewhere: no Docker engine runs on dev machines.
FROM golang:1.26 AS build
WORKDIR /src
COPY . .
RUN cd cmd/cardroom && CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/cardroom .

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/cardroom /cardroom
ENTRYPOINT ["/cardroom"]
