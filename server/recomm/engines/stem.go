package engines

// porterStem is Martin Porter's 1980 suffix-stripping algorithm for English, following his reference
// C implementation. It expects a lowercase ASCII word; other words are returned unchanged.
func porterStem(w string) string {
	if len(w) <= 2 {
		return w
	}
	for i := 0; i < len(w); i++ {
		if w[i] < 'a' || w[i] > 'z' {
			return w
		}
	}
	p := &porter{b: []byte(w), k: len(w) - 1}
	p.step1ab()
	if p.k > 0 {
		p.step1c()
		p.step2()
		p.step3()
		p.step4()
		p.step5()
	}
	return string(p.b[:p.k+1])
}

// porter holds the word being stemmed: b[0..k] is the current word, j an offset set by ends.
type porter struct {
	b    []byte
	k, j int
}

func (p *porter) cons(i int) bool {
	switch p.b[i] {
	case 'a', 'e', 'i', 'o', 'u':
		return false
	case 'y':
		return i == 0 || !p.cons(i-1)
	}
	return true
}

// m counts the vowel-consonant sequences in b[0..j].
func (p *porter) m() int {
	n, i := 0, 0
	for {
		if i > p.j {
			return n
		}
		if !p.cons(i) {
			break
		}
		i++
	}
	i++
	for {
		for {
			if i > p.j {
				return n
			}
			if p.cons(i) {
				break
			}
			i++
		}
		i++
		n++
		for {
			if i > p.j {
				return n
			}
			if !p.cons(i) {
				break
			}
			i++
		}
		i++
	}
}

func (p *porter) vowelInStem() bool {
	for i := 0; i <= p.j; i++ {
		if !p.cons(i) {
			return true
		}
	}
	return false
}

func (p *porter) doublec(j int) bool {
	return j >= 1 && p.b[j] == p.b[j-1] && p.cons(j)
}

// cvc reports consonant-vowel-consonant ending at i, the last consonant not w, x or y.
func (p *porter) cvc(i int) bool {
	if i < 2 || !p.cons(i) || p.cons(i-1) || !p.cons(i-2) {
		return false
	}
	switch p.b[i] {
	case 'w', 'x', 'y':
		return false
	}
	return true
}

func (p *porter) ends(s string) bool {
	l := len(s)
	if l > p.k+1 || string(p.b[p.k-l+1:p.k+1]) != s {
		return false
	}
	p.j = p.k - l
	return true
}

func (p *porter) setto(s string) {
	p.b = append(p.b[:p.j+1], s...)
	p.k = p.j + len(s)
}

func (p *porter) r(s string) {
	if p.m() > 0 {
		p.setto(s)
	}
}

func (p *porter) step1ab() {
	if p.b[p.k] == 's' {
		switch {
		case p.ends("sses"):
			p.k -= 2
		case p.ends("ies"):
			p.setto("i")
		case p.b[p.k-1] != 's':
			p.k--
		}
	}
	if p.ends("eed") {
		if p.m() > 0 {
			p.k--
		}
	} else if (p.ends("ed") || p.ends("ing")) && p.vowelInStem() {
		p.k = p.j
		switch {
		case p.ends("at"):
			p.setto("ate")
		case p.ends("bl"):
			p.setto("ble")
		case p.ends("iz"):
			p.setto("ize")
		case p.doublec(p.k):
			p.k--
			if ch := p.b[p.k]; ch == 'l' || ch == 's' || ch == 'z' {
				p.k++
			}
		default:
			p.j = p.k
			if p.m() == 1 && p.cvc(p.k) {
				p.setto("e")
			}
		}
	}
}

func (p *porter) step1c() {
	if p.ends("y") && p.vowelInStem() {
		p.b[p.k] = 'i'
	}
}

// suffixRule replaces a suffix when the stem before it has measure > 0.
type suffixRule struct{ from, to string }

var step2Rules = map[byte][]suffixRule{
	'a': {{"ational", "ate"}, {"tional", "tion"}},
	'c': {{"enci", "ence"}, {"anci", "ance"}},
	'e': {{"izer", "ize"}},
	'l': {{"bli", "ble"}, {"alli", "al"}, {"entli", "ent"}, {"eli", "e"}, {"ousli", "ous"}},
	'o': {{"ization", "ize"}, {"ation", "ate"}, {"ator", "ate"}},
	's': {{"alism", "al"}, {"iveness", "ive"}, {"fulness", "ful"}, {"ousness", "ous"}},
	't': {{"aliti", "al"}, {"iviti", "ive"}, {"biliti", "ble"}},
	'g': {{"logi", "log"}},
}

var step3Rules = map[byte][]suffixRule{
	'e': {{"icate", "ic"}, {"ative", ""}, {"alize", "al"}},
	'i': {{"iciti", "ic"}},
	'l': {{"ical", "ic"}, {"ful", ""}},
	's': {{"ness", ""}},
}

func (p *porter) applyRules(rules []suffixRule) {
	for _, r := range rules {
		if p.ends(r.from) {
			p.r(r.to)
			return
		}
	}
}

func (p *porter) step2() { p.applyRules(step2Rules[p.b[p.k-1]]) }
func (p *porter) step3() { p.applyRules(step3Rules[p.b[p.k]]) }

var step4Suffixes = map[byte][]string{
	'a': {"al"}, 'c': {"ance", "ence"}, 'e': {"er"}, 'i': {"ic"}, 'l': {"able", "ible"},
	'n': {"ant", "ement", "ment", "ent"}, 's': {"ism"}, 't': {"ate", "iti"}, 'u': {"ous"},
	'v': {"ive"}, 'z': {"ize"},
}

func (p *porter) step4() {
	found := false
	if p.b[p.k-1] == 'o' {
		found = (p.ends("ion") && p.j >= 0 && (p.b[p.j] == 's' || p.b[p.j] == 't')) || p.ends("ou")
	} else {
		for _, s := range step4Suffixes[p.b[p.k-1]] {
			if p.ends(s) {
				found = true
				break
			}
		}
	}
	if found && p.m() > 1 {
		p.k = p.j
	}
}

func (p *porter) step5() {
	p.j = p.k
	if p.b[p.k] == 'e' {
		if a := p.m(); a > 1 || (a == 1 && !p.cvc(p.k-1)) {
			p.k--
		}
	}
	if p.b[p.k] == 'l' && p.doublec(p.k) && p.m() > 1 {
		p.k--
	}
}
