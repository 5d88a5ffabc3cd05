/// Case and accent folding and word matching for recognised text.
///
/// Player names and game text mix cases and accents (`ÉLIMINÉ`, `Eliminé`), and OCR misreads single
/// letters (`elirninated`). Folding makes both sides comparable; the fuzzy match forgives one
/// substituted letter in long words but never an added or missing one, so `eliminate` or
/// `eliminations` do not count as `eliminated`.
enum TextFolding {
    /// Lowercased, accents removed, OCR look-alikes of letters kept as they are.
    static func fold(_ text: String) -> String {
        var out = String.UnicodeScalarView()
        for scalar in text.lowercased().unicodeScalars {
            if let plain = accentless[scalar] {
                out.append(contentsOf: plain.unicodeScalars)
            } else if (0x300...0x36F).contains(scalar.value) {
                continue  // a combining accent on its own
            } else {
                out.append(scalar)
            }
        }
        return String(out)
    }

    /// Whether a character is a mark: neither a letter nor a digit (what separates words).
    static func isMark(_ character: Character) -> Bool { !character.isLetter && !character.isNumber }

    /// A line as read without what scenery and outlines add at its ends: pieces there with no
    /// letter or digit or of one character ("-'. You fragged Gargoyle", "‘KILLED Kestrel é"), and
    /// marks stuck to its first and last words ("“Raven downed Echo", "Blaze killed Ranger}"). A
    /// bracket closed or opened within its word stays ("[FaZe]Ninja"). A line of nothing else is
    /// left as read.
    static func withoutStrayEnds(_ text: String) -> String {
        let isStray = { (piece: Substring) in piece.count == 1 || piece.allSatisfy(isMark) }
        var pieces = text.split(separator: " ")
        while let first = pieces.first, isStray(first) { pieces.removeFirst() }
        while let last = pieces.last, isStray(last) { pieces.removeLast() }
        guard !pieces.isEmpty else { return text }
        let pairs: [Character: Character] = ["(": ")", "[": "]", "{": "}", "<": ">"]
        func loose(_ mark: Character, in piece: Substring) -> Bool {
            guard isMark(mark) else { return false }
            if let closing = pairs[mark] { return !piece.contains(closing) }
            if let opening = pairs.first(where: { $0.value == mark })?.key { return !piece.contains(opening) }
            return true
        }
        while let mark = pieces[0].first, loose(mark, in: pieces[0]) { pieces[0].removeFirst() }
        let end = pieces.count - 1
        while let mark = pieces[end].last, loose(mark, in: pieces[end]) { pieces[end].removeLast() }
        return pieces.filter { !$0.isEmpty }.joined(separator: " ")
    }

    /// The letter-and-digit runs of a folded line.
    static func words(_ folded: String) -> [String] {
        var words: [String] = []
        var current = ""
        for character in folded {
            if !isMark(character) {
                current.append(character)
            } else if !current.isEmpty {
                words.append(current)
                current = ""
            }
        }
        if !current.isEmpty { words.append(current) }
        return words
    }

    /// Whether `phrase` (folded words) occurs as consecutive whole words in `words`.
    static func containsPhrase(_ phrase: [String], in words: [String], fuzzy: Bool) -> Bool {
        guard !phrase.isEmpty else { return false }
        // A phrase read without its spaces (`knockeddown`).
        if fuzzy, phrase.count > 1, words.contains(where: { wordMatches($0, phrase.joined(), fuzzy: true) }) {
            return true
        }
        guard words.count >= phrase.count else { return false }
        for start in 0...(words.count - phrase.count) {
            var all = true
            for (offset, expected) in phrase.enumerated()
            where !wordMatches(words[start + offset], expected, fuzzy: fuzzy) {
                all = false
                break
            }
            if all { return true }
        }
        return false
    }

    /// Equal words, or — when fuzzy and the keyword has 6 letters or more — the keyword with at most
    /// one substituted letter, alone or run together with a neighbouring word (OCR drops spaces:
    /// `ravendowned`), or — 8 letters or more — read with its start lost (``readWithItsStartLost``).
    /// Letters added or lost anywhere else never match, so `eliminate`, `eliminator` and
    /// `eliminations` stay different from `eliminated`.
    static func wordMatches(_ word: String, _ expected: String, fuzzy: Bool) -> Bool {
        if word == expected { return true }
        guard fuzzy, expected.count >= 6 else { return false }
        let letters = Array(word)
        let wanted = Array(expected)
        if wanted.count >= 8, readWithItsStartLost(letters, wanted) { return true }
        guard letters.count >= wanted.count else { return false }
        for offset in 0...(letters.count - wanted.count) {
            // A run-together word must hold the keyword at its start or end (`ravendowned`), not
            // in the middle of a longer word.
            if offset != 0 && offset != letters.count - wanted.count { continue }
            var differences = 0
            for index in 0..<wanted.count where letters[offset + index] != wanted[index] {
                differences += 1
                if differences > 1 { break }
            }
            if differences <= 1 { return true }
        }
        return false
    }

    /// Whether `word` is the long keyword `expected` with its first letter or two lost or misread,
    /// and at most one other letter wrong: the word ends with the keyword from its third letter on
    /// (one letter substituted at most), after at most two other letters. A picture compressed
    /// hard smears a word's thin first strokes: a 600 kbit/s real-time encode read "eliminated" as
    /// `liminated`, `eiminated` and `iminated` for a second and more.
    private static func readWithItsStartLost(_ word: [Character], _ expected: [Character]) -> Bool {
        let rest = expected.dropFirst(2)
        guard word.count >= rest.count, word.count <= expected.count else { return false }
        return zip(word.suffix(rest.count), rest).filter { $0 != $1 }.count <= 1
    }

    /// Similarity of two lines, 0...1 (1 − edit distance / longer length), to tell a line seen
    /// again with a misread letter from a new line.
    static func similarity(_ a: String, _ b: String) -> Double {
        let x = Array(a)
        let y = Array(b)
        if x.isEmpty && y.isEmpty { return 1 }
        var previous = Array(0...y.count)
        var current = [Int](repeating: 0, count: y.count + 1)
        for i in 1...max(1, x.count) where !x.isEmpty {
            current[0] = i
            for j in stride(from: 1, through: y.count, by: 1) {
                let cost = x[i - 1] == y[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            }
            swap(&previous, &current)
        }
        let distance = x.isEmpty ? y.count : previous[y.count]
        return 1 - Double(distance) / Double(max(x.count, y.count))
    }

    /// Whether two readings (folded words) can be the same line: with the words both read alike
    /// set aside (the most of them, in order), what remains is missing on one side (scenery read as
    /// an extra word, a word lost) or reads roughly the same (misread letters). Lines that differ in
    /// a name — "you fragged alice" and "you fragged bob", "grism was railed by sarge" and "major
    /// was railed by sarge" — are different lines, however similar the whole lines are.
    /// Words of one character are left out: scenery and outlines read as stray letters and digits.
    /// Extra words at an end of one reading only ("la you fragged grism" beside "you fragged
    /// gargoyle") are scenery too when fewer than the words read alike: the names are compared, not
    /// the whole lines (which read 0.55 alike here, enough for a line misread in its place).
    ///
    /// `restSimilarity` is how alike what remains must read: ``misread``, or ``misreadInPlace`` for
    /// a reading in the place of a line that never left it.
    static func sameLine(_ a: [String], _ b: [String], restSimilarity: Double = misread) -> Bool {
        let a = a.filter { $0.count > 1 }
        let b = b.filter { $0.count > 1 }
        // Words read alike: equal, or (4 letters or more) with a letter misread, added or lost.
        let alike = a.map { x in b.map { y in x == y || (min(x.count, y.count) >= 4 && similarity(x, y) >= 0.75) } }
        // shared[i][j]: how many words of a[i...] and b[j...] read alike, in order.
        var shared = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in a.indices.reversed() {
            for j in b.indices.reversed() {
                shared[i][j] = alike[i][j] ? shared[i + 1][j + 1] + 1 : max(shared[i + 1][j], shared[i][j + 1])
            }
        }
        var pairs: [(a: Int, b: Int)] = []
        var (i, j) = (0, 0)
        while i < a.count, j < b.count {
            if alike[i][j], shared[i][j] == shared[i + 1][j + 1] + 1 {
                pairs.append((i, j))
                (i, j) = (i + 1, j + 1)
            } else if shared[i + 1][j] >= shared[i][j + 1] {
                i += 1
            } else {
                j += 1
            }
        }
        // The words compared: all, but extra words at an end of one reading only (fewer than those
        // read alike) set aside.
        var (rangeA, rangeB) = (0..<a.count, 0..<b.count)
        if let first = pairs.first, let last = pairs.last {
            if (first.a == 0) != (first.b == 0), max(first.a, first.b) < pairs.count {
                (rangeA, rangeB) = (first.a..<rangeA.upperBound, first.b..<rangeB.upperBound)
            }
            let (afterA, afterB) = (a.count - 1 - last.a, b.count - 1 - last.b)
            if (afterA == 0) != (afterB == 0), max(afterA, afterB) < pairs.count {
                (rangeA, rangeB) = (rangeA.lowerBound..<last.a + 1, rangeB.lowerBound..<last.b + 1)
            }
        }
        // What remains on each side: from its first word not read alike to its last.
        func rest(_ words: [String], _ range: Range<Int>, _ paired: Set<Int>) -> String {
            let left = range.filter { !paired.contains($0) }
            guard let from = left.first, let to = left.last else { return "" }
            return words[from...to].joined(separator: " ")
        }
        let restA = rest(a, rangeA, Set(pairs.map(\.a)))
        let restB = rest(b, rangeB, Set(pairs.map(\.b)))
        if restA.isEmpty || restB.isEmpty { return true }
        return similarity(restA, restB) >= restSimilarity
    }

    /// How alike what differs must read for a reading in the place of a line that never left it
    /// to be that line misread: two letters of a five-letter name ("ninis", "ninja"), never three
    /// ("sarge" and "sorlag", two bots fragged one after the other in a centre print, stay two).
    static let misreadInPlace = 0.55
    /// How alike what differs must read elsewhere: a letter or two of a longer name.
    static let misread = 0.7

    /// Latin letters with diacritics (Latin-1 Supplement and Latin Extended-A) → plain letters.
    private static let accentless: [Unicode.Scalar: String] = {
        let pairs: [(String, String)] = [
            ("àáâãäåāăą", "a"), ("çćĉċč", "c"), ("ďđ", "d"), ("èéêëēĕėęě", "e"), ("ĝğġģ", "g"), ("ĥħ", "h"),
            ("ìíîïĩīĭįı", "i"), ("ĵ", "j"), ("ķ", "k"), ("ĺļľŀł", "l"), ("ñńņňŉ", "n"), ("òóôõöøōŏő", "o"),
            ("ŕŗř", "r"), ("śŝşš", "s"), ("ţťŧ", "t"), ("ùúûüũūŭůűų", "u"), ("ŵ", "w"), ("ýÿŷ", "y"),
            ("źżž", "z"), ("æ", "ae"), ("œ", "oe"), ("ß", "ss"), ("þ", "th"), ("ð", "d"),
        ]
        var table: [Unicode.Scalar: String] = [:]
        for (letters, plain) in pairs {
            for scalar in letters.unicodeScalars { table[scalar] = plain }
        }
        return table
    }()
}
