import Foundation
import Xapian

/// Translates Core Spotlight query strings (`CSSearchQuery`) into Spotlite queries, so that people porting a
/// Spotlight integration can keep their queries.
///
/// Supported: `attribute op value` with `==`, `!=`, `<`, `>`, `<=`, `>=`; `&&`, `||`, `!` and parentheses;
/// `"strings"` with `*` wildcards at the end of words and the `c`, `d`, `w` modifiers (Spotlite always matches
/// words case-insensitively, and ignores diacritics as `d` asks); `InRange(attribute, low, high)`; numbers,
/// `true`/`false`, `$time.now`, `$time.now(±seconds)`, `$time.today`, `$time.today(±days)`, `$time.iso(date)`.
///
/// | attribute | Spotlite |
/// |---|---|
/// | `title` | title words |
/// | `contentDescription` | detail words |
/// | `textContent`, `*`, `**` | title and detail words |
/// | `containerTitle` | project title |
/// | `domainIdentifier` | project URI |
/// | `kind` | `"item"`, `"project"` or `"message"` |
/// | `authorNames` | a message's author, an item's author |
/// | `keywords` | an item's tags |
/// | `participants` | an item's author, assignees or commenters, a message's author (`involves:`) |
/// | `identifier` | an item's key in the tracker it came from (`key:`) |
/// | `completionDate` | when an item was closed (`closed:`) |
/// | `priority` | 1…3 |
/// | `completed` | `true` / `false` |
/// | `contentCreationDate`, `contentModificationDate` | created, modified |
public struct SpotlightQueryParser {
    let words: SearchQueryParser
    let clock: QueryClock

    public init(words: SearchQueryParser, clock: QueryClock = .system) {
        self.words = words
        self.clock = clock
    }

    public func parse(_ text: String) throws(SearchIndexError) -> SearchQuery {
        if text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            throw SearchIndexError(.querySyntax, "the Spotlight query is empty; write one such as title == \"tap*\"")
        }
        try SearchQueryParser.checkLimits(text, nestingOf: ["(", "!"])
        var parser = Parser(tokens: try Lexer(text: text).tokens(), source: text, words: words, clock: clock)
        let query = try parser.parseExpression()
        if let extra = parser.peek {
            throw parser.error("unexpected \(extra.text) after a complete expression", at: extra)
        }
        return SearchQuery(text: text, query: query, filters: parser.explanations)
    }

    // MARK: - Tokens

    struct Token {
        enum Kind: Equatable {
            case identifier
            case string(modifiers: String)
            case number, op, leftParen, rightParen, comma
        }
        var kind: Kind
        var text: String
        var offset: Int
    }

    struct Lexer {
        let text: String

        func tokens() throws(SearchIndexError) -> [Token] {
            let characters = Array(text)
            var tokens: [Token] = []
            var index = 0
            func fail(_ message: String) -> SearchIndexError {
                SearchIndexError(
                    .querySyntax, "cannot parse the Spotlight query '\(text)': \(message) at character \(index + 1)")
            }
            while index < characters.count {
                let character = characters[index]
                if character.isWhitespace {
                    index += 1
                } else if character == "\"" || character == "'" {
                    let quote = character
                    let start = index
                    index += 1
                    var value = ""
                    while index < characters.count, characters[index] != quote {
                        if characters[index] == "\\", index + 1 < characters.count { index += 1 }
                        value.append(characters[index])
                        index += 1
                    }
                    guard index < characters.count else {
                        index = start
                        throw fail("a string is not closed")
                    }
                    index += 1
                    var modifiers = ""
                    while index < characters.count, characters[index].isLetter {
                        guard "cdw".contains(characters[index]) else {
                            throw fail("'\(characters[index])' is not a string modifier (use c, d or w)")
                        }
                        modifiers.append(characters[index])
                        index += 1
                    }
                    tokens.append(Token(kind: .string(modifiers: modifiers), text: value, offset: start))
                } else if character == "(" {
                    tokens.append(Token(kind: .leftParen, text: "(", offset: index))
                    index += 1
                } else if character == ")" {
                    tokens.append(Token(kind: .rightParen, text: ")", offset: index))
                    index += 1
                } else if character == "," {
                    tokens.append(Token(kind: .comma, text: ",", offset: index))
                    index += 1
                } else if "=!<>&|".contains(character) {
                    let two = index + 1 < characters.count ? String(characters[index...index + 1]) : ""
                    if ["==", "!=", "<=", ">=", "&&", "||"].contains(two) {
                        tokens.append(Token(kind: .op, text: two, offset: index))
                        index += 2
                    } else if "!<>".contains(character) {
                        tokens.append(Token(kind: .op, text: String(character), offset: index))
                        index += 1
                    } else {
                        throw fail("'\(character)' is not an operator (use ==, !=, <, >, <=, >=, &&, ||, !)")
                    }
                } else if character.isNumber
                    || (character == "-" && index + 1 < characters.count && characters[index + 1].isNumber)
                {
                    let start = index
                    index += 1
                    while index < characters.count, characters[index].isNumber || characters[index] == "." {
                        index += 1
                    }
                    tokens.append(Token(kind: .number, text: String(characters[start..<index]), offset: start))
                } else if character.isLetter || character == "$" || character == "*" || character == "_" {
                    let start = index
                    while index < characters.count,
                        characters[index].isLetter || characters[index].isNumber || "$*_.".contains(characters[index])
                    {
                        index += 1
                    }
                    tokens.append(Token(kind: .identifier, text: String(characters[start..<index]), offset: start))
                } else {
                    throw fail("'\(character)' is not expected here")
                }
            }
            return tokens
        }
    }

    // MARK: - Grammar

    enum Attribute {
        case text(field: String)
        case kind, priority, completed, containerTitle, domain, author
        /// A boolean field of the Spotlite language's tracker filters (``SearchQueryParser/trackerFilter(_:_:)``).
        case tracker(field: String)
        case date(field: String, slot: UInt32)

        static func named(_ name: String) -> Attribute? {
            switch name {
            case "title": return .text(field: "title")
            case "contentDescription": return .text(field: "detail")
            case "textContent", "*", "**": return .text(field: "")
            case "kind": return .kind
            case "priority": return .priority
            case "completed", "isCompleted": return .completed
            case "containerTitle": return .containerTitle
            case "authorNames": return .author
            case "domainIdentifier": return .domain
            case "contentCreationDate": return .date(field: "created", slot: ValueSlot.created)
            case "contentModificationDate": return .date(field: "modified", slot: ValueSlot.modified)
            case "completionDate": return .date(field: "closed", slot: ValueSlot.closed)
            case "keywords": return .tracker(field: "tag")
            case "participants": return .tracker(field: "involves")
            case "identifier": return .tracker(field: "key")
            default: return nil
            }
        }

        static let names = [
            "title", "contentDescription", "textContent", "*", "kind", "priority", "completed", "containerTitle",
            "domainIdentifier", "contentCreationDate", "contentModificationDate", "authorNames", "keywords",
            "participants", "identifier", "completionDate",
        ]
    }

    struct Parser {
        let tokens: [Token]
        let source: String
        let words: SearchQueryParser
        let clock: QueryClock
        var position = 0
        var explanations: [String] = []

        init(tokens: [Token], source: String, words: SearchQueryParser, clock: QueryClock) {
            self.tokens = tokens
            self.source = source
            self.words = words
            self.clock = clock
        }

        var peek: Token? { position < tokens.count ? tokens[position] : nil }

        func error(_ message: String, at token: Token? = nil) -> SearchIndexError {
            let place = token.map { " at character \($0.offset + 1)" } ?? " at the end"
            return SearchIndexError(.querySyntax, "cannot parse the Spotlight query '\(source)': \(message)\(place)")
        }

        mutating func next() throws(SearchIndexError) -> Token {
            guard let token = peek else { throw error("the query ends too early") }
            position += 1
            return token
        }

        mutating func expect(_ kind: Token.Kind, _ what: String) throws(SearchIndexError) {
            let token = try next()
            guard token.kind == kind else { throw error("expected \(what), found \(token.text)", at: token) }
        }

        mutating func parseExpression() throws(SearchIndexError) -> Query {
            var left = try parseAnd()
            while let token = peek, token.kind == .op, token.text == "||" {
                position += 1
                left = try combine(left, .or, try parseAnd())
            }
            return left
        }

        mutating func parseAnd() throws(SearchIndexError) -> Query {
            var left = try parseUnary()
            while let token = peek, token.kind == .op, token.text == "&&" {
                position += 1
                left = try combine(left, .and, try parseUnary())
            }
            return left
        }

        /// How deep `!` and parentheses nest where the parser is (bounded: each level is a recursion).
        var depth = 0

        mutating func parseUnary() throws(SearchIndexError) -> Query {
            let token = try next()
            if (token.kind == .op && token.text == "!") || token.kind == .leftParen {
                depth += 1
                defer { depth -= 1 }
                if depth > SearchQueryParser.maximumNesting { throw SearchQueryParser.nestingError(depth) }
                if token.kind == .leftParen {
                    let inner = try parseExpression()
                    try expect(.rightParen, "')'")
                    return inner
                }
                return try combine(Query.matchAll(), .andNot, try parseUnary())
            }
            guard token.kind == .identifier else {
                throw error("expected an attribute, found \(token.text)", at: token)
            }
            if token.text == "InRange" {
                try expect(.leftParen, "'(' after InRange")
                let name = try next()
                guard let attribute = Attribute.named(name.text) else { throw unknownAttribute(name) }
                try expect(.comma, "',' in InRange")
                let low = try nextValue()
                try expect(.comma, "',' in InRange")
                let high = try nextValue()
                try expect(.rightParen, "')' closing InRange")
                return try range(attribute, name, low: low, high: high)
            }
            guard let attribute = Attribute.named(token.text) else { throw unknownAttribute(token) }
            let op = try next()
            guard op.kind == .op, ["==", "!=", "<", ">", "<=", ">="].contains(op.text) else {
                throw error("expected a comparison (==, !=, <, >, <=, >=) after \(token.text)", at: op)
            }
            let value = try nextValue()
            return try comparison(attribute, token, op, value)
        }

        /// The next value; `$time.today(-7)`, `$time.now(3600)` and `$time.iso("2024-05-01")` become one token
        /// (an ISO date becomes a string token).
        mutating func nextValue() throws(SearchIndexError) -> Token {
            let token = try next()
            guard token.kind == .identifier, token.text.hasPrefix("$time."), let open = peek, open.kind == .leftParen
            else { return token }
            position += 1
            let argument = try next()
            try expect(.rightParen, "')' after \(token.text)(")
            if token.text == "$time.iso" {
                guard case .string = argument.kind else { throw error("$time.iso takes a \"date\"", at: argument) }
                return Token(kind: .string(modifiers: ""), text: argument.text, offset: token.offset)
            }
            guard argument.kind == .number, SearchQueryParser.filterNumber(argument.text) != nil else {
                throw error(
                    "\(token.text)( takes a whole number of at most \(SearchQueryParser.maximumFilterNumber)",
                    at: argument)
            }
            return Token(kind: .identifier, text: "\(token.text)(\(argument.text))", offset: token.offset)
        }

        func unknownAttribute(_ token: Token) -> SearchIndexError {
            error(
                "unknown attribute \(token.text); Spotlite knows \(Attribute.names.joined(separator: ", "))", at: token)
        }

        func combine(_ left: Query, _ op: Query.Operator, _ right: Query) throws(SearchIndexError) -> Query {
            try xapian { () throws(XapianError) in try left.combined(op, with: right) }
        }

        mutating func comparison(_ attribute: Attribute, _ name: Token, _ op: Token, _ value: Token)
            throws(SearchIndexError)
            -> Query
        {
            switch attribute {
            case .text(let field):
                guard case .string = value.kind else {
                    throw error("\(name.text) compares with a \"string\"", at: value)
                }
                guard op.text == "==" || op.text == "!=" else {
                    throw error("\(name.text) supports == and != only", at: op)
                }
                let wordQuery = try text(field: field, value)
                return op.text == "==" ? wordQuery : try combine(Query.matchAll(), .andNot, wordQuery)
            case .kind, .containerTitle, .domain, .author, .tracker:
                guard case .string = value.kind else {
                    throw error("\(name.text) compares with a \"string\"", at: value)
                }
                guard op.text == "==" || op.text == "!=" else {
                    throw error("\(name.text) supports == and != only", at: op)
                }
                let mapping: (QueryParser.FieldMapping, String)
                switch attribute {
                case .kind: mapping = SearchQueryParser.kindTerm(value.text)
                case .containerTitle: mapping = SearchQueryParser.projectTerm(value.text)
                case .author: mapping = SearchQueryParser.authorTerm(value.text)
                case .tracker(let field): mapping = SearchQueryParser.trackerFilter(field, value.text)
                default:
                    guard value.text.hasPrefix("tracker://") else {
                        throw error("domainIdentifier is a project URI (tracker://…/project/…)", at: value)
                    }
                    mapping = SearchQueryParser.projectTerm(value.text)
                }
                let term = try self.term(mapping, at: value)
                return op.text == "==" ? term : try combine(Query.matchAll(), .andNot, term)
            case .completed:
                guard value.kind == .identifier, value.text == "true" || value.text == "false" else {
                    throw error("completed compares with true or false", at: value)
                }
                guard op.text == "==" || op.text == "!=" else {
                    throw error("completed supports == and != only", at: op)
                }
                let status = (value.text == "true") == (op.text == "==") ? "completed" : "open"
                return try term((SearchQueryParser.statusMapping(status), "status is \(status)"), at: value)
            case .priority:
                guard value.kind == .number, let number = SearchQueryParser.filterNumber(value.text) else {
                    throw error("priority compares with a whole number from 1 to 3", at: value)
                }
                if op.text == "!=" {
                    // Every row but those of that priority: all of them when it is no priority at all.
                    guard (1...3).contains(number) else { return Query.matchAll() }
                    return try combine(Query.matchAll(), .andNot, try priorityRange(number, number, at: value))
                }
                let (low, high) = bounds(op.text, number, step: 1)
                return try priorityRange(low, high, at: value)
            case .date(let field, let slot):
                let period = try time(value)
                let query: Query
                switch op.text {
                case "==": query = try valueRange(slot, period.start, period.end - 1)
                case "!=":
                    return try combine(Query.matchAll(), .andNot, try valueRange(slot, period.start, period.end - 1))
                case "<": query = try valueRange(slot, nil, period.start - 1)
                case "<=": query = try valueRange(slot, nil, period.end - 1)
                case ">": query = try valueRange(slot, period.end, nil)
                default: query = try valueRange(slot, period.start, nil)
                }
                explanations.append("\(field) \(op.text) \(value.text)")
                return query
            }
        }

        mutating func range(_ attribute: Attribute, _ name: Token, low: Token, high: Token) throws(SearchIndexError)
            -> Query
        {
            switch attribute {
            case .priority:
                guard let lower = SearchQueryParser.filterNumber(low.text),
                    let upper = SearchQueryParser.filterNumber(high.text)
                else {
                    throw error("InRange(priority, …) takes whole numbers", at: low)
                }
                return try priorityRange(lower, upper, at: low)
            case .date(let field, let slot):
                let from = try time(low)
                let to = try time(high)
                explanations.append("\(field) in \(low.text) … \(high.text)")
                return try valueRange(slot, from.start, to.end - 1)
            default:
                throw error("InRange takes priority, contentCreationDate or contentModificationDate", at: name)
            }
        }

        func bounds(_ op: String, _ value: Int, step: Int) -> (Int?, Int?) {
            switch op {
            case "<": return (nil, value - step)
            case "<=": return (nil, value)
            case ">": return (value + step, nil)
            case ">=": return (value, nil)
            default: return (value, value)
            }
        }

        /// Priorities from `low` to `high` (nil: open), cut to 1–3 as ``SearchQueryParser`` cuts them; a range with
        /// none in it is refused in the same words.
        mutating func priorityRange(_ low: Int?, _ high: Int?, at token: Token) throws(SearchIndexError) -> Query {
            guard let range = SearchQueryParser.priorities(from: low, to: high) else {
                throw error(SearchQueryParser.noPriority(from: low, to: high), at: token)
            }
            explanations.append("priority is \(range.lowerBound)…\(range.upperBound)")
            return try valueRange(ValueSlot.priority, Double(range.lowerBound), Double(range.upperBound))
        }

        func valueRange(_ slot: UInt32, _ low: Double?, _ high: Double?) throws(SearchIndexError) -> Query {
            try xapian { () throws(XapianError) in
                try Query.valueRange(
                    slot: slot, lower: low.map(SortableNumber.encode), upper: high.map(SortableNumber.encode))
            }
        }

        mutating func term(_ mapping: (QueryParser.FieldMapping, String), at token: Token) throws(SearchIndexError)
            -> Query
        {
            switch mapping.0 {
            case .term(let term):
                explanations.append(mapping.1)
                return Query(term: term)
            case .slotTerm(let term, let slot, let value):
                explanations.append(mapping.1)
                return try xapian { () throws(XapianError) in try Query.slotTerm(term, slot: slot, value: value) }
            case .anyTerm(let terms):
                explanations.append(mapping.1)
                return Query(anyOf: terms)
            case .invalid(let message): throw error(message, at: token)
            default: return Query.matchNothing()
            }
        }

        /// Words of a string compared with a text attribute, through the ordinary query parser (stemming, wildcards).
        func text(field: String, _ value: Token) throws(SearchIndexError) -> Query {
            let pieces = value.text.split(whereSeparator: { $0.isWhitespace || $0 == "\"" })
            guard !pieces.isEmpty else { throw error("the string is empty", at: value) }
            var terms: [String] = []
            for piece in pieces {
                if piece.dropLast().contains("*") || piece == "*" {
                    throw error("'\(piece)': Spotlite supports a * only at the end of a word", at: value)
                }
                terms.append(field.isEmpty ? String(piece) : "\(field):\(piece)")
            }
            let parsed = try words.parse(terms.joined(separator: " "))
            return parsed.query
        }

        /// A `$time…` value or ISO date as a period [start, end) in seconds.
        func time(_ token: Token) throws(SearchIndexError) -> (start: Double, end: Double) {
            let calendar = clock.calendar
            let now = clock.now()
            func argument() -> Int? {
                guard let open = token.text.firstIndex(of: "(") else { return 0 }
                return Int(token.text[token.text.index(after: open)...].dropLast())
            }
            if case .string = token.kind {
                guard let period = DateFilter(clock: clock).absolute(token.text), let start = period.start,
                    let end = period.end
                else { throw error("\"\(token.text)\" is not a date (YYYY, YYYY-MM or YYYY-MM-DD)", at: token) }
                return (start, end)
            }
            let name = token.text.prefix { $0 != "(" }
            if name == "$time.now", let seconds = argument() {
                let instant = now.timeIntervalSince1970.rounded(.down) + Double(seconds)
                return (instant, instant + 1)
            }
            if name == "$time.today", let days = argument(),
                let start = calendar.date(byAdding: .day, value: days, to: calendar.startOfDay(for: now)),
                let end = calendar.date(byAdding: .day, value: 1, to: start)
            {
                return (start.timeIntervalSince1970, end.timeIntervalSince1970)
            }
            throw error(
                "\(name) is not a value; use a number, a \"string\", true, false, $time.now, $time.today(±n) or $time.iso(\"date\")",
                at: token)
        }
    }
}
