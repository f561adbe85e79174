module github.com/cardroom/cardroom/services/wallet

go 1.26.0
