import Foundation
import SearchIndex
import TrackerStore

extension StoreIndexer {
    /// How long a search waits for `spotlite watch` to apply changes committed before it.
    static let watcherGrace: TimeInterval = 1

    /// Searches, reading its own writes: catches the index up first when the write lock is free at once;
    /// otherwise searches what is committed and reports how many changes behind it is.
    ///
    /// Throws ``IndexerError/Code-swift.struct/querySyntax`` for a query that cannot be parsed.
    public func search(_ text: String, offset: Int = 0, limit: Int = 20) throws(IndexerError) -> SearchOutcome {
        var options = SearchOptions()
        options.request.offset = offset
        options.request.limit = limit
        return try search(text, options: options)
    }

    public func search(_ text: String, options: SearchOptions) throws(IndexerError) -> SearchOutcome {
        // Refuse a bad query before touching the index.
        let checked = try SearchPipeline.parse(text, options: options, reader: nil, path: location.root)
        try checkLocation()
        let fresh = try freshReader(reusing: nil, onLargeBacklog: options.onLargeBacklog)
        return try pipeline(fresh, options: options).run(text, checked: checked)
    }

    /// The search pipeline of this store alone, reading `fresh`.
    func pipeline(_ fresh: FreshReader, options: SearchOptions) -> SearchPipeline {
        SearchPipeline(
            sources: [SearchPipeline.Source(name: nil, indexer: self, fresh: fresh)], reader: fresh.reader,
            options: options)
    }

    /// A reader that has every change committed to the store before the search, as far as possible.
    struct FreshReader {
        var reader: SearchReader
        /// Set when the search caught the index up (or built it) first.
        var catchUp: Report?
        /// Changes the reader has not applied (another writer holds the index), nil when none.
        var behind: Int?
        /// Why the index could not be caught up and was searched as committed (this user cannot write it, the
        /// disk is full), if it was.
        var staleReason: String?
    }

    /// `reader` (or, without one, the index opened now) when it is current, after a reopen if need be; else
    /// catches the index up — through the change the store had logged when the search began, however busy its
    /// writers — when the write lock is free at once, waits briefly for `spotlite watch`, or reads what is
    /// committed and counts what it lacks (as it does for an index this user cannot write).
    func freshReader(reusing reader: SearchReader?, onLargeBacklog: ((IndexProgress) -> Void)? = nil)
        throws(IndexerError)
        -> FreshReader
    {
        let target = try lastChange()
        // Most searches find the index current: a read of its cursor avoids taking the write lock at all.
        if let reader = reader ?? (location.exists ? try? openReader() : nil) {
            if try isCurrent(reader, target: target) { return FreshReader(reader: reader) }
            if (try? reader.reopen()) != nil, try isCurrent(reader, target: target) {
                return FreshReader(reader: reader)
            }
        }
        var catchUp: Report?
        if location.exists, !location.isWritable {
            // Searched as committed; the caller says so.
            return try committedReader(because: "the index is read-only to you")
        }
        let caughtUp: Report?
        do {
            // Counting the backlog costs a read of the log: only when someone is to be told of it.
            caughtUp = try catchUpIfUnlocked(
                through: target,
                progress: onLargeBacklog.map { announce in
                    { progress in
                        if progress.done == 0, progress.backlog >= SearchOptions.largeBacklog { announce(progress) }
                    }
                })
        } catch  where location.exists && IndexFailure.isOutOfSpace(error) {
            // The index that is there still answers: better stale results, said so, than none.
            return try committedReader(because: "the index could not be brought up to date: the disk is full")
        }
        if let report = caughtUp {
            catchUp = report
        } else if liveWatcher() != nil {
            // `spotlite watch` keeps the index live: a few milliseconds let it apply what was just written, so
            // that a search reads its own writes.
            _ = try waitUntilCurrent(timeout: Self.watcherGrace)
        } else if !location.exists {
            // Someone else is building the first index: wait for it rather than search nothing.
            catchUp = try self.catchUp()
        }
        let searcher = try indexer(location.root) { try openReader() }
        guard catchUp == nil else { return FreshReader(reader: searcher, catchUp: catchUp) }
        let behind = try changes(after: searcher)
        return FreshReader(reader: searcher, behind: behind == 0 ? nil : behind)
    }

    /// The committed index, with how far behind it is and why it was not caught up.
    private func committedReader(because reason: String) throws(IndexerError) -> FreshReader {
        let searcher = try indexer(location.root) { try openReader() }
        let behind = try changes(after: searcher)
        return FreshReader(reader: searcher, behind: behind == 0 ? nil : behind, staleReason: reason)
    }

    /// How many logged changes `reader`'s index has not applied.
    private func changes(after reader: SearchReader) throws(IndexerError) -> Int {
        try indexer(location.root) {
            let cursor = Int64(try reader.fetchLastClientState() ?? "0") ?? 0
            return try store.read { try $0.changeCount(after: cursor) }
        }
    }

    /// `text` with the snippet's own marks (``Snippet/markStart``, ``Snippet/markEnd``), should the store's text hold
    /// them, replaced by U+FFFD: only the matcher's marks highlight.
    static func unmarked(_ text: String) -> String {
        var probe = text
        guard probe.withUTF8(Snippet.holdsMark) else { return text }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            let isMark = scalar == Snippet.markStartScalar || scalar == Snippet.markEndScalar
            out.append(isMark ? "\u{FFFD}" : scalar)
        }
        return String(out)
    }

    /// Where the words a spelling correction may replace are in `text`: runs of letters and digits with at least one
    /// letter, not an operator, not part of a `field:value`, not a wildcard's stem.
    static func correctableWordRanges(_ text: String) -> [Range<String.Index>] {
        text.isAllASCII ? asciiCorrectableWordRanges(text) : characterCorrectableWordRanges(text)
    }

    /// ``correctableWordRanges(_:)`` of any text, from its characters.
    static func characterCorrectableWordRanges(_ text: String) -> [Range<String.Index>] {
        var ranges: [Range<String.Index>] = []
        var index = text.startIndex
        while index < text.endIndex {
            guard !text[index].isWhitespaceQuick else {
                index = text.index(after: index)
                continue
            }
            // A token runs to the next white space (a quoted phrase's words are tokens of their own).
            var end = index
            while end < text.endIndex, !text[end].isWhitespaceQuick { end = text.index(after: end) }
            let token = text[index..<end]
            if !token.contains(where: { $0 == ":" || $0 == "*" }) {
                var start = token.startIndex
                while start < token.endIndex {
                    guard token[start].isLetterOrNumber else {
                        start = token.index(after: start)
                        continue
                    }
                    var stop = start
                    while stop < token.endIndex, token[stop].isLetterOrNumber { stop = token.index(after: stop) }
                    let word = token[start..<stop]
                    if word.contains(where: \.isLetterQuick), !TextNormalizer.queryOperators.contains(String(word)) {
                        ranges.append(start..<stop)
                    }
                    start = stop
                }
            }
            index = end
        }
        return ranges
    }

    /// ``correctableWordRanges(_:)`` of an ASCII text, from its bytes: walking its characters was a visible part of
    /// a rare phrase's search.
    static func asciiCorrectableWordRanges(_ text: String) -> [Range<String.Index>] {
        let bytes = text.utf8
        var ranges: [Range<String.Index>] = []
        var index = bytes.startIndex
        while index < bytes.endIndex {
            guard !bytes[index].isASCIIWhitespace else {
                bytes.formIndex(after: &index)
                continue
            }
            // A token runs to the next white space (a quoted phrase's words are tokens of their own).
            var end = index
            var fielded = false
            while end < bytes.endIndex, !bytes[end].isASCIIWhitespace {
                if bytes[end] == UInt8(ascii: ":") || bytes[end] == UInt8(ascii: "*") { fielded = true }
                bytes.formIndex(after: &end)
            }
            var start = index
            while !fielded && start < end {
                guard bytes[start].isASCIILetter || bytes[start].isASCIIDigit else {
                    bytes.formIndex(after: &start)
                    continue
                }
                var stop = start
                var letters = false
                while stop < end, bytes[stop].isASCIILetter || bytes[stop].isASCIIDigit {
                    letters = letters || bytes[stop].isASCIILetter
                    bytes.formIndex(after: &stop)
                }
                if letters, !TextNormalizer.queryOperators.contains(String(text[start..<stop])) {
                    ranges.append(start..<stop)
                }
                start = stop
            }
            index = end
        }
        return ranges
    }

    /// For project titles a query filters on that no project has: the nearest titles that exist (by edit distance,
    /// ignoring case and accents), best first.
    public func projectSuggestions(for titles: [String]) throws(IndexerError) -> [ProjectSuggestion] {
        guard !titles.isEmpty else { return [] }
        let projects = try indexer(location.root) { try store.read { try $0.allProjectTitles(limit: 100_000) } }
        // Keyed as the filter compares titles, so a title the filter matches is never "near" itself.
        let known = Dictionary(projects.map { (TextNormalizer.titleKey($0), $0) }, uniquingKeysWith: { a, _ in a })
        return titles.compactMap { typed in
            let key = TextNormalizer.titleKey(typed)
            guard known[key] == nil else { return nil }
            let bound = max(2, key.count / 3)
            let near = known.compactMap { candidate, title -> (Int, String)? in
                let distance = EditDistance.between(key, candidate, limit: bound)
                return distance.map { ($0, title) }
            }.sorted { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1 < $1.1 }
            return ProjectSuggestion(typed: typed, titles: near.prefix(3).map(\.1))
        }
    }

    /// Longer details are cut to a window before Xapian looks for the best snippet in it: its exhaustive search
    /// stems and weighs every word it is given, so its work grows with the window, and a snippet is 160 bytes. A
    /// window of about six snippets around the first place a query word appears leaves it room to find a passage
    /// with more of the query, without walking a whole changelog entry.
    static let snippetWindowLength = 1_000

    /// Lowercased word stems of a query (no operators), to find where in a long text the snippet should come from.
    static func snippetWords(_ query: String) -> [String] {
        query.lowercased().split(whereSeparator: { !($0.isLetter || $0.isNumber) }).compactMap { word in
            guard word.count >= 3, !["and", "not", "xor"].contains(word) else { return nil }
            // leaking → leaki, finds leaks/leaked/leaking; the first 100 characters (at most 400 bytes) find a longer
            // word, and fit in the window they start (snippetWindow(of:words:)).
            return String(word.prefix(min(100, max(3, word.count - 2))))
        }
    }

    /// `text`, or for a long text the window around the first place a query word appears (else its start).
    static func snippetWindow(_ text: String, words: [String]) -> String {
        var text = text
        return text.withUTF8 { bytes in
            String(
                decoding: UnsafeBufferPointer(rebasing: bytes[snippetWindow(of: bytes, words: words)]), as: UTF8.self)
        }
    }

    /// The bytes of ``snippetWindow(_:words:)`` in a text's UTF-8 `bytes`: all of them, or for a long text about
    /// ``snippetWindowLength`` from 300 before the first place a query word appears, both ends on the first byte of
    /// a character. One pass that stops at the first match: a changelog entry can be hundreds of kilobytes. The
    /// window of a window is itself: the word that placed it is in it, 300 bytes in (less the ≤ 3 bytes that moved
    /// its start onto a character) with room for ``snippetWords(_:)``' 400, or none was found and it starts at 0.
    /// So a detail a store already cut to it (``SearchPipeline/resolve(_:details:)``) is cut again to the same bytes.
    static func snippetWindow(of bytes: UnsafeBufferPointer<UInt8>, words: [String]) -> Range<Int> {
        guard bytes.count > snippetWindowLength else { return 0..<bytes.count }
        let first = firstPlace(of: words, in: bytes) ?? 0
        var start = max(0, first - 300)
        var end = min(bytes.count, start + snippetWindowLength)
        // Move both ends off UTF-8 continuation bytes (10xxxxxx) so the window is valid text.
        while start > 0 && bytes[start] & 0xC0 == 0x80 { start -= 1 }
        while end < bytes.count && bytes[end] & 0xC0 == 0x80 { end += 1 }
        return start..<end
    }

    /// The first offset in `bytes` where one of `words` (lowercased) begins, ASCII letters compared without case.
    static func firstPlace(of words: [String], in bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        let patterns = words.map { Array($0.utf8) }.filter { !$0.isEmpty }
        guard !patterns.isEmpty, let base = bytes.baseAddress else { return nil }
        // The bytes a word can begin with, in either case: the scan passes over every other byte, sixteen at a time
        // while there are at most four of them (a query of one or two words), else one at a time.
        var begins = [Bool](repeating: false, count: 256)
        for pattern in patterns {
            begins[Int(pattern[0])] = true
            if pattern[0].isASCIILowercase { begins[Int(pattern[0] - 0x20)] = true }
        }
        let firsts = (0...255).filter { begins[$0] }.map(UInt8.init)
        func folded(_ byte: UInt8) -> UInt8 { byte.isASCIIUppercase ? byte | 0x20 : byte }
        return begins.withUnsafeBufferPointer { begins -> Int? in
            func matches(at position: Int) -> Bool {
                patterns.contains { pattern in
                    guard pattern.count <= bytes.count - position else { return false }
                    var offset = 0
                    while offset < pattern.count && folded(bytes[position + offset]) == pattern[offset] { offset += 1 }
                    return offset == pattern.count
                }
            }
            var position = 0
            if firsts.count <= 4 {
                // Four bytes to test, the last repeated for fewer, in registers rather than an array's walk.
                let (a, b, c, d) = (
                    SIMD16<UInt8>(repeating: firsts[0]), SIMD16<UInt8>(repeating: firsts[min(1, firsts.count - 1)]),
                    SIMD16<UInt8>(repeating: firsts[min(2, firsts.count - 1)]),
                    SIMD16<UInt8>(repeating: firsts[firsts.count - 1])
                )
                // Each lane's bit, summed into a byte per half: which of the sixteen bytes can begin a word.
                let bits = SIMD8<UInt8>(1, 2, 4, 8, 16, 32, 64, 128)
                while position + 16 <= bytes.count {
                    let sixteen = UnsafeRawPointer(base + position).loadUnaligned(as: SIMD16<UInt8>.self)
                    let found = (sixteen .== a) .| (sixteen .== b) .| (sixteen .== c) .| (sixteen .== d)
                    if any(found) {
                        let lanes = SIMD16<UInt8>(repeating: 0).replacing(
                            with: SIMD16(lowHalf: bits, highHalf: bits), where: found)
                        var candidates =
                            UInt16(lanes.lowHalf.wrappedSum()) | UInt16(lanes.highHalf.wrappedSum()) << 8
                        while candidates != 0 {
                            let at = position + candidates.trailingZeroBitCount
                            if matches(at: at) { return at }
                            candidates &= candidates - 1
                        }
                    }
                    position += 16
                }
            }
            for at in position..<bytes.count where begins[Int(bytes[at])] && matches(at: at) { return at }
            return nil
        }
    }

    /// Whether the index is bound to this store and layout and has applied the store's change `target` (its last
    /// when the search began), and none the store does not have.
    func isCurrent(_ reader: SearchReader, target: Int64) throws(IndexerError) -> Bool {
        try indexer(location.root) {
            guard try reader.revisionMetadata(Self.storeKey) == store.uuid,
                try reader.revisionMetadata(SearchIndexLayout.versionKey) == SearchIndexLayout.version,
                let cursor = Int64(try reader.fetchLastClientState() ?? "")
            else { return false }
            if cursor == target { return true }
            // A watcher may have applied changes logged since the search began.
            guard cursor > target else { return false }
            return try cursor <= store.lastChangeSequence()
        }
    }

}
