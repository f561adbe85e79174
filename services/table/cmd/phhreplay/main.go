// Command phhreplay replays Poker Hand History files through the engine and
// prints one tab-separated line per file:
//
//	FILE	STACKS	[s1, s2, ...]
//	FILE	REJECT@k	reason
//	FILE	ERROR	reason
//
// STACKS are the stacks after the last action in PHH player order, computed
// by the engine (the file's finishing_stacks is ignored). REJECT@k names the
// 0-based index in actions of the first action refused and the refusal.
// ERROR is a file that cannot be replayed at all (not PHH, a variant the
// engine does not deal). It is the future "cardroom phh replay".
package main

import (
	"fmt"
	"io"
	"os"

	"github.com/cardroom/cardroom/services/table/phh"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "phhreplay:", err)
		os.Exit(1)
	}
}

// run replays each file named in args and writes its line to w. It fails
// only when it cannot write or was given no files; a file that cannot be
// read gets an ERROR line, like any other bad file.
func run(args []string, w io.Writer) error {
	if len(args) == 0 {
		return fmt.Errorf("usage: phhreplay FILE...")
	}
	for _, name := range args {
		if _, err := fmt.Fprintln(w, replayFile(name)); err != nil {
			return err
		}
	}
	return nil
}

func replayFile(name string) phh.Line {
	f, err := os.Open(name)
	if err != nil {
		return phh.Line{Name: name, Err: err}
	}
	defer f.Close()
	return phh.Replay(f, name)
}
