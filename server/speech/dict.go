package speech

import (
	"bufio"
	"fmt"
	"os"
	"strings"
)

// loadDictionary reads the words of a CMU-format pronunciation dictionary
// ("word PH O N E S", alternatives as "word(2) ..."), so a grammar can be
// checked before pocketsphinx sees it.
func loadDictionary(path string) (map[string]bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	words := make(map[string]bool, 140000)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		end := strings.IndexAny(line, " \t(")
		if end <= 0 {
			continue
		}
		words[line[:end]] = true
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return words, nil
}
