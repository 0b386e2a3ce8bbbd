import Foundation
import Xapian

/// Parses Spotlite query strings into Xapian queries.
///
/// Syntax (docs/query-language.md): words (all must match, stemmed), `"phrases"`, `AND`/`OR`/`NOT`, parentheses,
/// `+word`/`-word`, `word*` wildcards, `title:`, `detail:`, `project:<title or URI>`, `is:open|completed|closed`,
/// `kind:item|project|message`, `author:NAME`, `priority:N`, `priority:2..3`, `priority:>=2`, `created:`/`modified:` dates
/// (see ``DateFilter``). Any filter can be negated with `-` or `NOT`.
public final class SearchQueryParser {
    private let parser: QueryParser
    /// What `today` and `-7d` are read against (a reader's kept parser takes each search's clock).
    var clock: QueryClock
    /// What the filters of the last parse mean, for `--explain`.
    private var explanations: [String] = []
    /// The project titles the last parse's `project:` filters named.
    private var projectTitles: [String] = []

    /// A wildcard may stand for at most this many words; more is an error, not a slow search.
    public static let maximumWildcardExpansion: UInt32 = 1_000
    /// The longest query accepted, in bytes of UTF-8.
    public static let maximumQueryBytes = 8_192
    /// How deep parentheses (and, in Spotlight queries, `!`) may nest: parsers recurse, stacks are finite.
    public static let maximumNesting = 64
    /// The largest number a filter takes (`priority:`, `$time.today(…)`): anything bigger is an error, not an
    /// overflow.
    public static let maximumFilterNumber = 1_000_000_000

    /// A whole number of at most ten digits (optionally signed), or nil: filter numbers are range-checked here,
    /// before any arithmetic on them.
    static func filterNumber<S: StringProtocol>(_ text: S) -> Int? {
        guard let number = Int(text), (-maximumFilterNumber...maximumFilterNumber).contains(number) else { return nil }
        return number
    }
    /// A partial last word (search as you type) expands to its most frequent completions, at most this many.
    public static let maximumPartialExpansion: UInt32 = 100

    /// The Snowball stemmer of queries, as of the index (DocumentBuilder).
    static let stemmingLanguage = "english"

    static let flags: QueryParser.Flags = [.boolean, .phrase, .loveHate, .pureNot, .wildcard, .cjkNgrams]

    /// - Parameters:
    ///   - clock: what `today` and `-7d` are read against.
    ///   - reader: the index whose words wildcards expand to and spelling corrections come from.
    public init(clock: QueryClock = .system, reader: SearchReader? = nil) throws(SearchIndexError) {
        parser = QueryParser()
        self.clock = clock
        try xapian { () throws(XapianError) in
            try parser.setStemmer(language: Self.stemmingLanguage)
            parser.setStemmingStrategy(.some)
            parser.setDefaultAnd(true)
            parser.setMaxExpansion(Self.maximumWildcardExpansion, partialLimit: Self.maximumPartialExpansion)
            if let reader { parser.setDatabase(reader.database) }
            // The default field searches title and detail; the title is indexed once, under its prefix.
            try parser.addPrefix(field: "", prefix: TermPrefix.detail)
            try parser.addPrefix(field: "", prefix: TermPrefix.title)
            try parser.addPrefix(field: "title", prefix: TermPrefix.title)
            try parser.addPrefix(field: "detail", prefix: TermPrefix.detail)
            try parser.addBooleanField("project") { [unowned self] value in
                if !value.hasPrefix("tracker://") { self.projectTitles.append(value) }
                return self.note("project", value, Self.projectTerm(value))
            }
            try parser.addBooleanField("is") { [unowned self] in self.note("is", $0, Self.statusTerm($0)) }
            try parser.addBooleanField("kind") { [unowned self] in self.note("kind", $0, Self.kindTerm($0)) }
            try parser.addBooleanField("author") { [unowned self] in self.note("author", $0, Self.authorTerm($0)) }
            try parser.addBooleanField("priority") { [unowned self] in
                self.note("priority", $0, self.priorityFilter($0))
            }
            for field in Self.trackerFields {
                // An item has many tags and assignees, and of the rest: `tag:a tag:b` is an item with both.
                let exclusive = ["resolution", "key", "duplicates"].contains(field)
                try parser.addBooleanField(field, exclusive: exclusive) { [unowned self] in
                    self.note(field, $0, Self.trackerFilter(field, $0))
                }
            }
            try parser.addBooleanField("closed") { [unowned self] in
                self.note("closed", $0, self.dateFilter($0, field: "closed", slot: ValueSlot.closed))
            }
            try parser.addBooleanField("created") { [unowned self] in
                self.note("created", $0, self.dateFilter($0, field: "created", slot: ValueSlot.created))
            }
            try parser.addBooleanField("modified") { [unowned self] in
                self.note("modified", $0, self.dateFilter($0, field: "modified", slot: ValueSlot.modified))
            }
        }
    }

    /// Xapian's grammar line for an operator without its operands ("Syntax: <expression> AND <expression>") in
    /// words, with what to do; any other reason as Xapian gives it.
    static func plainReason(_ message: String) -> String {
        let parts = message.split(separator: " ")
        guard parts.count == 4, parts[0] == "Syntax:", parts[1] == "<expression>", parts[3] == "<expression>" else {
            return message
        }
        let operator_ = parts[2]
        return "\(operator_) needs a word or phrase on each side; to search for the word itself, write it in "
            + "lowercase (\(operator_.lowercased())) or quote it"
    }

    /// Parses `text`; throws ``SearchIndexError/Code-swift.struct/querySyntax`` with a sentence saying what is wrong.
    ///
    /// - Parameters:
    ///   - partial: treat the last word as a prefix (search as you type).
    ///   - correctSpelling: also compute a spelling correction (``SearchQuery/correctedText``); needs a reader.
    public func parse(_ text: String, partial: Bool = false, correctSpelling: Bool = false) throws(SearchIndexError)
        -> SearchQuery
    {
        if text.allSatisfy(\.isWhitespaceQuick) {
            throw SearchIndexError(.querySyntax, "the query is empty; type some words, or a filter such as kind:item")
        }
        try Self.checkLimits(text)
        if let problem = emptyField(in: text) {
            throw SearchIndexError(.querySyntax, "cannot parse the query '\(text)': \(problem)")
        }
        explanations = []
        projectTitles = []
        negatedFilters = Self.negatedFilters(in: text)
        var flags = Self.flags
        if partial { flags.insert(.partial) }
        if correctSpelling { flags.insert(.spellingCorrection) }
        var query: Query
        do {
            // The text as the index holds it: folded, compound words with their parts (TextNormalizer), each
            // compound counting as one word.
            let bound = NotBinding.rewrite(NotBinding.excludingAlone(Self.negatingFilters(text)), partial: partial)
            let normalized = TextNormalizer.normalizedQuery(bound)
            query = try parser.parse(normalized.text, flags: flags).groupingCompounds(
                normalized.compounds, stemmingLanguage: Self.stemmingLanguage, titlePrefix: TermPrefix.title)
        } catch  where error.kind == .querySyntax || error.kind == .invalidArgument {
            throw SearchIndexError(
                .querySyntax, "cannot parse the query '\(text)': \(Self.plainReason(error.message))", cause: error)
        } catch {
            // The index moved under a wildcard's expansion or the spelling search: not the query's fault.
            throw SearchIndexError(error)
        }
        if query.isEmpty {
            throw SearchIndexError(.querySyntax, "the query '\(text)' has no words to search for")
        }
        if let key = Self.sourceKey(typedAlone: text) {
            // A key typed alone (HADOOP-1234) finds its item too, which its rare term ranks first.
            let term = Query(term: TermPrefix.nameTerm(TermPrefix.sourceKey, key))
            query = try xapian { () throws(XapianError) in try query.combined(.or, with: term) }
        }
        var bonus: Query?
        if let phrase = Self.phraseBonus(for: text, partial: partial) {
            // Words that appear together, in order, rank above the same words scattered through the text.
            if let parsed = try? parser.parse(TextNormalizer.query(phrase), flags: flags), !parsed.isEmpty {
                bonus = parsed
            }
        }
        let corrected = correctSpelling ? parser.correctedQuery : ""
        var seen = Set<String>()
        // Xapian's parser may call a field's processor twice for the same text.
        let filters = explanations.filter { seen.insert($0).inserted }
        var titles = Set<String>()
        return SearchQuery(
            text: text, query: query, bonus: bonus, filters: filters,
            correctedText: corrected.isEmpty ? nil : corrected,
            projectTitles: projectTitles.filter { titles.insert($0).inserted })
    }

    /// What is wrong with a field written with nothing after its colon (`author:` alone, `-is:`), which Xapian
    /// would read as the plain word: the same refusal as `author:""` gets. Nil when there is none.
    func emptyField(in text: String) -> String? {
        guard Self.mayEndAField(text) else { return nil }
        for token in NotBinding.tokenize(text) where token.kind == .term && token.text.hasSuffix(":") {
            var field = token.text.dropLast()
            if field.hasPrefix("-") || field.hasPrefix("+") { field = field.dropFirst() }
            let name = String(field)
            let mapping: QueryParser.FieldMapping
            switch name {
            case "project": mapping = Self.projectTerm("").0
            case "author": mapping = Self.authorTerm("").0
            case "is": mapping = Self.statusTerm("").0
            case "kind": mapping = Self.kindTerm("").0
            case "priority": mapping = priorityFilter("").0
            case "created", "modified", "closed": mapping = dateFilter("", field: name, slot: ValueSlot.created).0
            case _ where Self.trackerFields.contains(name): mapping = Self.trackerFilter(name, "").0
            case "title", "detail": return "\(name): needs a word or a \"phrase\", e.g. \(name):boiler"
            default: continue
            }
            if case .invalid(let message) = mapping { return message }
        }
        return nil
    }

    /// Records what a filter means (prefixed "not" when the query negates it), and passes its mapping on.
    private func note(_ field: String, _ value: String, _ result: (QueryParser.FieldMapping, String))
        -> QueryParser.FieldMapping
    {
        // (Duplicates are dropped after the parse.)
        if case .invalid = result.0 {
        } else {
            let negated = negatedFilters.contains("\(field):\(value)".lowercased())
            explanations.append(negated ? "not: \(result.1)" : result.1)
        }
        return result.0
    }

    /// `field:value` (lowercased, unquoted) of every filter written after `-` or `NOT` in the query being parsed.
    private var negatedFilters: Set<String> = []

    // MARK: - Fields

    static func projectTerm(_ value: String) -> (QueryParser.FieldMapping, String) {
        let value = value.trimmingCharacters(in: .whitespaces)
        if value.isEmpty { return (.invalid("project: needs a project title or URI"), "") }
        if value.hasPrefix("tracker://") {
            let parts = value.dropFirst("tracker://".count).split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count == 3, parts[1] == "project" else {
                return (.invalid("project:\(value) is not a project URI (tracker://<store>/project/<uuid>)"), "")
            }
            // The project's short term names no store: a copy of the project in another store searched is it too.
            let base = "tracker://" + parts[0] + "/"
            return (.term(TermPrefix.domain + IdentifierCoding(base: base).term(value)), "project is \(value)")
        }
        return (.term(TermPrefix.containerTitleTerm(value)), "project title is '\(value)' (any case)")
    }

    /// `author:alice` (any case and accents; quote a name with spaces: `author:"Ada Lovelace"`).
    static func authorTerm(_ value: String) -> (QueryParser.FieldMapping, String) {
        let value = value.trimmingCharacters(in: .whitespaces)
        if value.isEmpty { return (.invalid("author: needs a name, e.g. author:alice"), "") }
        return (.term(TermPrefix.authorTerm(value)), "author is '\(value)' (any case)")
    }

    /// The filters on an item's tracker fields, each a boolean field (``trackerFilter(_:_:)``).
    static let trackerFields = [
        "tag", "assignee", "involves", "resolution", "key", "has", "no", "linked", "duplicates",
    ]

    /// What `has:` and `no:` ask about.
    static let hasFields = ["tag", "assignee", "link", "author", "resolution", "key"]

    /// `tag:bug`, `assignee:alice`, `involves:alice` (author, assignee or commenter), `resolution:fixed`, `key:HADOOP-1234` (any
    /// case and accents; quote a value with spaces), `has:tag` / `no:tag` (and assignee, link, author, resolution,
    /// key), `linked:duplicate-of` (blocks, relates-to), `duplicates:<item URI or UUID>`.
    static func trackerFilter(_ field: String, _ value: String) -> (QueryParser.FieldMapping, String) {
        let value = value.trimmingCharacters(in: .whitespaces)
        let names = [
            "tag": (TermPrefix.tag, "tag:bug"), "assignee": (TermPrefix.assignee, "assignee:alice"),
            "resolution": (TermPrefix.resolution, "resolution:fixed"), "key": (TermPrefix.sourceKey, "key:HADOOP-1234"),
        ]
        if let (prefix, example) = names[field] {
            if value.isEmpty { return (.invalid("\(field): needs a value, e.g. \(example)"), "") }
            return (.term(TermPrefix.nameTerm(prefix, value)), "\(field) is '\(value)' (any case)")
        }
        switch field {
        case "involves":
            if value.isEmpty { return (.invalid("involves: needs a name, e.g. involves:alice"), "") }
            return (
                .anyTerm([
                    TermPrefix.authorTerm(value), TermPrefix.nameTerm(TermPrefix.assignee, value),
                    TermPrefix.nameTerm(TermPrefix.commenter, value),
                ]),
                "author, assignee or commenter is '\(value)' (any case)"
            )
        case "has", "no":
            let asked = value.lowercased()
            guard hasFields.contains(asked) else {
                let list = hasFields.map { "\(field):\($0)" }.joined(separator: ", ")
                return (.invalid("\(field):\(value) is not a field to ask about; use \(list)"), "")
            }
            let term = TermPrefix.has + asked
            return field == "has" ? (.term(term), "has a \(asked)") : (.withoutTerm(term), "has no \(asked)")
        case "linked":
            let kinds = ["duplicate-of", "blocks", "relates-to"]
            guard kinds.contains(value.lowercased()) else {
                return (
                    .invalid(
                        "linked:\(value) is not a kind of link; use linked:duplicate-of, linked:blocks or linked:relates-to"
                    ), ""
                )
            }
            return (.term(TermPrefix.linkKind + value.lowercased()), "has a \(value.lowercased()) link")
        default:  // duplicates
            let id = value.hasPrefix("tracker://") ? String(value.split(separator: "/").last ?? "") : value
            guard value.hasPrefix("tracker://") ? value.contains("/item/") : true,
                let term = TermPrefix.duplicateTerm(id.lowercased())
            else {
                return (
                    .invalid("duplicates:\(value) is not an item; use duplicates:tracker://<store>/item/<uuid>"), ""
                )
            }
            return (.term(term), "duplicate of item \(id.lowercased())")
        }
    }

    /// The filter on one status: its term, which the documents holding its value in the status slot hold
    /// (``SlotTerm``, which DocumentBuilder writes both from).
    static func statusMapping(_ status: String) -> QueryParser.FieldMapping { slotMapping(.status(status)) }

    /// The filter on one priority, as ``statusMapping(_:)`` is on a status.
    static func priorityMapping(_ priority: Int) -> QueryParser.FieldMapping { slotMapping(.priority(priority)) }

    private static func slotMapping(_ slotTerm: SlotTerm) -> QueryParser.FieldMapping {
        .slotTerm(slotTerm.term, slot: slotTerm.slot, value: slotTerm.value)
    }

    static func statusTerm(_ value: String) -> (QueryParser.FieldMapping, String) {
        switch value.lowercased() {
        case "open": return (statusMapping("open"), "status is open")
        case "completed", "done": return (statusMapping("completed"), "status is completed")
        case "closed":
            // Closed projects and completed items: the two statuses after open, one byte each in the status slot.
            // (`completed` is kept as 2, `closed` as 3: ValueSlot.statuses.)
            return (
                .valueRange(
                    slot: ValueSlot.status, lower: ValueSlot.statusValue("completed"),
                    upper: ValueSlot.statusValue("closed")),
                "status is closed (projects) or completed (items)"
            )
        default: return (.invalid("is:\(value) is not a status; use is:open, is:completed or is:closed"), "")
        }
    }

    static func kindTerm(_ value: String) -> (QueryParser.FieldMapping, String) {
        guard let kind = SearchableItemAttributeSet.Kind(rawValue: value.lowercased()) else {
            return (.invalid("kind:\(value) is not a kind; use kind:item, kind:project or kind:message"), "")
        }
        return (.term(TermPrefix.kind + kind.rawValue), "kind is \(kind.rawValue)")
    }

    /// `priority:2`, `priority:2..3`, `priority:..2`, `priority:>=2`, `priority:<3`. A range reaching past 1–3 is cut
    /// to it (`priority:>=0` is every priority); one with no priority in it at all is refused.
    func priorityFilter(_ value: String) -> (QueryParser.FieldMapping, String) {
        let invalid = QueryParser.FieldMapping.invalid(
            "priority:\(value) is not a priority; use 1, 2 or 3, a range like 2..3, or >=2, <=2, >1, <3")
        var lower: Int?
        var upper: Int?
        if let single = Self.filterNumber(value) {
            (lower, upper) = (single, single)
        } else if let dots = value.range(of: "..") {
            let left = value[..<dots.lowerBound]
            let right = value[dots.upperBound...]
            if left.isEmpty && right.isEmpty { return (invalid, "") }
            if !left.isEmpty {
                guard let number = Self.filterNumber(left) else { return (invalid, "") }
                lower = number
            }
            if !right.isEmpty {
                guard let number = Self.filterNumber(right) else { return (invalid, "") }
                upper = number
            }
        } else if value.hasPrefix(">="), let number = Self.filterNumber(value.dropFirst(2)) {
            lower = number
        } else if value.hasPrefix("<="), let number = Self.filterNumber(value.dropFirst(2)) {
            upper = number
        } else if value.hasPrefix(">"), let number = Self.filterNumber(value.dropFirst()) {
            lower = number + 1
        } else if value.hasPrefix("<"), let number = Self.filterNumber(value.dropFirst()) {
            upper = number - 1
        } else {
            return (invalid, "")
        }
        guard let range = Self.priorities(from: lower, to: upper) else {
            return (.invalid(Self.noPriority(from: lower, to: upper)), "")
        }
        if range.count == 1 {
            return (Self.priorityMapping(range.lowerBound), "priority is \(range.lowerBound)")
        }
        return (
            .valueRange(
                slot: ValueSlot.priority, lower: SortableNumber.encode(Double(range.lowerBound)),
                upper: SortableNumber.encode(Double(range.upperBound))),
            "priority is \(range.lowerBound)…\(range.upperBound)"
        )
    }

    /// The priorities (1–3) from `lower` to `upper` (nil: open), or nil when none lies between: both query
    /// languages cut a priority range to 1–3 this way.
    static func priorities(from lower: Int?, to upper: Int?) -> ClosedRange<Int>? {
        let low = max(lower ?? 1, 1)
        let high = min(upper ?? 3, 3)
        return low <= high ? low...high : nil
    }

    /// Why a priority range was refused, in the same words in both query languages.
    static func noPriority(from lower: Int?, to upper: Int?) -> String {
        let range = lower != nil && lower == upper ? "is \(lower ?? 0)" : "lies in \(lower ?? 1)…\(upper ?? 3)"
        return "no priority \(range); priorities are 1, 2 and 3"
    }

    func dateFilter(_ value: String, field: String, slot: UInt32) -> (QueryParser.FieldMapping, String) {
        guard let range = DateFilter(clock: clock).range(value) else {
            return (.invalid("\(field):\(value) is not a date; \(DateFilter.help)"), "")
        }
        // Written from the calendar's fields: a DateFormatter, made for each filter, cost more than the rest of the
        // parse of a query with a date.
        let calendar = clock.calendar
        func written(_ seconds: Double) -> String {
            let fields = calendar.dateComponents(
                [.year, .month, .day, .hour, .minute, .second], from: Date(timeIntervalSince1970: seconds))
            // As `%04d-%02d-%02d %02d:%02d:%02d` writes them; String(format:) cost more than the calendar's fields.
            return zeroPadded(fields.year ?? 0, 4) + "-" + zeroPadded(fields.month ?? 0, 2) + "-"
                + zeroPadded(fields.day ?? 0, 2) + " " + zeroPadded(fields.hour ?? 0, 2) + ":"
                + zeroPadded(fields.minute ?? 0, 2) + ":" + zeroPadded(fields.second ?? 0, 2)
        }
        let from = range.lower.map(written) ?? "the beginning"
        let to = range.upper.map(written) ?? "now and later"
        let offset = calendar.timeZone.secondsFromGMT(for: clock.now()) / 60
        let zone =
            offset == 0
            ? "UTC"
            : "UTC" + (offset < 0 ? "-" : "+") + zeroPadded(abs(offset) / 60, 2) + ":" + zeroPadded(abs(offset) % 60, 2)
        return (
            .valueRange(
                slot: slot, lower: range.lower.map(SortableNumber.encode), upper: range.upper.map(SortableNumber.encode)
            ),
            "\(field) from \(from) to \(to) (\(zone))"
        )
    }
}

/// `number` in decimal, padded with zeros to `width` characters as C's `%0*d` pads it (a minus sign counts).
func zeroPadded(_ number: Int, _ width: Int) -> String {
    let digits = String(number.magnitude)
    let sign = number < 0 ? "-" : ""
    return sign + String(repeating: "0", count: max(0, width - sign.count - digits.count)) + digits
}

/// A parsed query, ready to run.
public struct SearchQuery: CustomStringConvertible {
    /// What the user typed.
    public let text: String
    /// What matches, and how it ranks.
    let query: Query
    /// Extra weight where it matches too (the typed words as an exact phrase); never changes what matches.
    let bonus: Query?
    /// What each filter of the query means, in words (for `--explain`).
    public let filters: [String]
    /// Xapian's spelling correction of ``text``, when one was asked for and found.
    public let correctedText: String?
    /// The project titles the query's `project:` filters name (not URIs), as typed.
    public let projectTitles: [String]

    init(
        text: String, query: Query, bonus: Query? = nil, filters: [String] = [], correctedText: String? = nil,
        projectTitles: [String] = []
    ) {
        self.text = text
        self.query = query
        self.bonus = bonus
        self.filters = filters
        self.correctedText = correctedText
        self.projectTitles = projectTitles
    }

    /// Xapian's description of the parsed query, the bonus included (for `--explain` and debugging).
    public var description: String {
        guard let bonus, let whole = try? query.combined(.andMaybe, with: bonus) else { return query.description }
        return whole.description
    }
}
