package speech

// LoadDictionary reads the words of a CMU-format pronunciation dictionary
// ("word PH O N E S", alternatives as "word(2) ..."), so a grammar (or a
// line to be spoken, server/spokeneval) can be checked before pocketsphinx
// sees it.
func LoadDictionary(path string) (map[string]bool, error) {
	words := make(map[string]bool, 140000)
	if err := ScanDictionary(path, func(word, _ string) { words[word] = true }); err != nil {
		return nil, err
	}
	return words, nil
}
