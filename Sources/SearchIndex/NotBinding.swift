/// Makes `NOT` take the one term after it, wherever it stands, as `-word` does and as FTS5's `NOT` does.
///
/// Xapian's parser reads `NOT` as a binary operator whose right side is everything joined by the default AND
/// after it: `leaking NOT project:garden tap` is `leaking AND NOT (project:garden AND tap)`, and a leading
/// `NOT project:garden leaking` is "everything but the garden's leaking items". People mean the one term:
/// `leaking AND tap AND NOT project:garden`. So before Xapian sees the query:
///
/// - a `NOT term` followed by another term gets an explicit `AND` after its term (`a NOT b AND c`), which Xapian
///   reads as `(a AND NOT b) AND c`;
/// - a `NOT term` that starts a run of ANDed terms (the query's start, after `(`, `OR` or `XOR`) changes places
///   with the term after it (`NOT b c d` → `c NOT b AND d`), so that the run is `c AND NOT b`, not "all documents
///   but b"; the same documents, and the ranking of `c` alone.
///
/// A term is a word (with its field, `+`, `-` or `*`), a quoted phrase, a parenthesised group (rewritten inside the
/// same way), or terms joined by `NEAR` or `ADJ`, which bind tighter than `NOT`. A query without a `NOT` is
/// returned as it is.
enum NotBinding {
    /// `text` with each `NOT` bound to one term. With `partial` (the last word is a prefix), a term that ends the
    /// query keeps its place there: `NOT b c` becomes `NOT b AND c`.
    static func rewrite(_ text: String, partial: Bool = false) -> String {
        guard text.containsBytes(of: "NOT") else { return text }
        let tokens = tokenize(text)
        guard tokens.contains(where: { $0.kind == .operator && $0.text == "NOT" }) else { return text }
        var position = 0
        var rewritten = group(tokens, at: &position, partial: partial, isOutermost: true).flatMap(\.tokens)
        rewritten += tokens[position...]  // after a `)` that closes nothing: left for Xapian to refuse
        return rewritten.map(\.text).joined(separator: " ")
    }

    /// A query or a group of excluded terms alone (`-draft`, `-draft -"old notes"`, `-draft NOT project:garden`,
    /// `leak (-draft -wip)`) excludes them from every document, as `NOT draft NOT "old notes"` does. Xapian's parser
    /// refuses a query or group that only excludes ("can't just hate") and reads the whole query again without its
    /// syntax, which searched for the excluded words themselves (and for `OR` as a word).
    static func excludingAlone(_ text: String) -> String {
        guard mayExclude(text) else { return text }
        let tokens = tokenize(text)
        guard tokens.contains(where: { $0.kind == .term && $0.text.hasPrefix("-") }) else { return text }
        var index = 0
        var changed = false
        let rewritten = excludingAlone(tokens, at: &index, changed: &changed)
        // Nothing to rewrite, or a `)` that closes nothing: as typed (Xapian refuses the latter).
        guard changed, index == tokens.count else { return text }
        return rewritten.joined(separator: " ")
    }

    /// The tokens of the group from `index` (after its `(`, or the query's start) to its `)`, which is left at
    /// `index` for the caller, each of its groups rewritten alike: if the group holds only excluded terms (`-term`)
    /// and `NOT`s of a term or group, each `-term` as `NOT term`.
    private static func excludingAlone(_ tokens: [Token], at index: inout Int, changed: inout Bool) -> [String] {
        var out: [String] = []
        var excluded: [Int] = []  // where in `out` the group's `-term`s are
        var onlyExclusions = true
        func operand() {
            if tokens[index].kind == .open {
                index += 1
                out.append("(")
                out += excludingAlone(tokens, at: &index, changed: &changed)
                if index < tokens.count {
                    out.append(")")
                    index += 1
                }
            } else {
                out.append(tokens[index].text)
                index += 1
            }
        }
        while index < tokens.count, tokens[index].kind != .close {
            let token = tokens[index]
            if token.kind == .operator, token.text == "NOT", index + 1 < tokens.count,
                tokens[index + 1].kind == .term || tokens[index + 1].kind == .open
            {
                out.append(token.text)
                index += 1
                operand()
            } else if token.kind == .term, isExclusion(token.text) {
                excluded.append(out.count)
                operand()
            } else {
                onlyExclusions = false
                operand()
            }
        }
        if onlyExclusions && !excluded.isEmpty {
            for position in excluded { out[position] = "NOT " + out[position].dropFirst() }
            changed = true
        }
        return out
    }

    /// Whether a term excludes what follows its `-`: not before another `-` or a `+`, nor alone (Xapian ignores
    /// such a `-`).
    private static func isExclusion(_ term: String) -> Bool {
        guard term.hasPrefix("-"), let next = term.dropFirst().first else { return false }
        return next != "-" && next != "+"
    }

    /// Whether a word of `text` may begin with `-`: a `-` at the start, after white space or a parenthesis, or after
    /// a byte outside ASCII (which may end Unicode's white space). A `-` inside a word (`2024-05-01`, `x-ray`)
    /// excludes nothing, and reading such a query for exclusions was a visible part of a search with a date.
    static func mayExclude(_ text: String) -> Bool {
        var previous: UInt8 = 0x20
        for byte in text.utf8 {
            if byte == UInt8(ascii: "-"), previous.mayBoundAWord { return true }
            previous = byte
        }
        return false
    }

    struct Token: Equatable {
        enum Kind { case open, close, `operator`, term }
        var kind: Kind
        var text: String
    }

    /// An operator, or an operand: a term, a group with its parentheses, or terms joined by NEAR/ADJ.
    enum Item {
        case `operator`(Token)
        case operand([Token])

        var tokens: [Token] {
            switch self {
            case .operator(let token): return [token]
            case .operand(let tokens): return tokens
            }
        }

        var isOperand: Bool {
            if case .operand = self { return true }
            return false
        }

        func isOperator(_ names: Set<String>) -> Bool {
            if case .operator(let token) = self { return names.contains(token.text) }
            return false
        }
    }

    static let booleanOperators: Set<String> = ["AND", "OR", "NOT", "XOR"]

    /// Whether `word` is `NEAR` or `ADJ`, alone or with a distance (`NEAR/3`).
    static func isProximity(_ word: String) -> Bool {
        for name in ["NEAR", "ADJ"] where word.hasPrefix(name) {
            let rest = word.dropFirst(name.count)
            return rest.isEmpty || (rest.hasPrefix("/") && rest.count > 1 && rest.dropFirst().allSatisfy(\.isNumber))
        }
        return false
    }

    /// Parentheses, operators and terms; a quoted stretch belongs to the term it is in (`title:"a (b)"`).
    static func tokenize(_ text: String) -> [Token] {
        var tokens: [Token] = []
        var index = text.startIndex
        while index < text.endIndex {
            let character = text[index]
            if character.isWhitespace {
                index = text.index(after: index)
            } else if character == "(" || character == ")" {
                tokens.append(Token(kind: character == "(" ? .open : .close, text: String(character)))
                index = text.index(after: index)
            } else {
                var end = index
                var quoted = false
                while end < text.endIndex {
                    let next = text[end]
                    if next == "\"" {
                        quoted.toggle()
                    } else if !quoted && (next.isWhitespace || next == "(" || next == ")") {
                        break
                    }
                    end = text.index(after: end)
                }
                let word = String(text[index..<end])
                let isOperator = booleanOperators.contains(word) || isProximity(word)
                tokens.append(Token(kind: isOperator ? .operator : .term, text: word))
                index = end
            }
        }
        return tokens
    }

    /// The items of the group starting at `position` (after its `(`, or the query's start), rewritten, through
    /// its `)` (left at `position`'s end for the caller) or the end of the tokens.
    static func group(_ tokens: [Token], at position: inout Int, partial: Bool, isOutermost: Bool) -> [Item] {
        var items: [Item] = []
        while position < tokens.count, tokens[position].kind != .close {
            let token = tokens[position]
            position += 1
            switch token.kind {
            case .open:
                let inner = group(tokens, at: &position, partial: partial, isOutermost: false)
                var operand = [token] + inner.flatMap(\.tokens)
                if position < tokens.count {
                    operand.append(tokens[position])  // its `)`
                    position += 1
                }
                items.append(.operand(operand))
            case .operator:
                items.append(.operator(token))
            case .term, .close:
                items.append(.operand([token]))
            }
        }
        return bindingNot(joiningProximity(items), partial: partial && isOutermost)
    }

    /// `a NEAR b` (and `ADJ`) as one operand: they bind tighter than `NOT`.
    static func joiningProximity(_ items: [Item]) -> [Item] {
        var out: [Item] = []
        var index = 0
        while index < items.count {
            if case .operator(let token) = items[index], isProximity(token.text), case .operand(let left)? = out.last,
                index + 1 < items.count, case .operand(let right) = items[index + 1]
            {
                out[out.count - 1] = .operand(left + [token] + right)
                index += 2
                continue
            }
            out.append(items[index])
            index += 1
        }
        return out
    }

    static func bindingNot(_ items: [Item], partial: Bool) -> [Item] {
        let and = Item.operator(Token(kind: .operator, text: "AND"))
        var out: [Item] = []
        var index = 0
        while index < items.count {
            guard items[index].isOperator(["NOT"]), index + 1 < items.count, items[index + 1].isOperand else {
                out.append(items[index])
                index += 1
                continue
            }
            let negation = [items[index], items[index + 1]]
            let next = index + 2
            let isFollowed = next < items.count && items[next].isOperand
            let startsRun = out.isEmpty || out.last?.isOperator(["OR", "XOR"]) == true
            // The prefix word of search as you type must stay last.
            let nextEndsQuery = next == items.count - 1
            if isFollowed && startsRun && !(partial && nextEndsQuery) {
                out.append(items[next])
                out += negation
                index = next + 1
            } else {
                out += negation
                index = next
            }
            if index < items.count && items[index].isOperand { out.append(and) }
        }
        return out
    }
}
