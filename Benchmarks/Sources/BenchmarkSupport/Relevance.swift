import Foundation
import GRDB
import Indexer
import SearchIndex
import TrackerStore

/// The relevance dev set of `samples/` (GitBugs Hadoop, CC BY 4.0 — see samples/README.md) and the duplicate-bug
/// task of `../shared/corpora/README.md`: for each bug with known duplicates, search its title words joined with
/// OR (stop words dropped), leave the bug itself out, and see how many of its duplicates come back in the top 10
/// (Recall@10) and how high the first one ranks (MRR@10). Spotlite and the SQLite FTS5 baseline run on the same
/// items and the same words in one run.
public struct RelevanceDevSet: Sendable {
    public struct Query: Sendable {
        public var itemID: String
        public var title: String
        public var duplicates: Set<String>
    }

    public var queries: [Query]
    public var itemsPath: String

    /// The queries with their bugs' ids replaced as `ids` says (a query or duplicate it has no id for is left out).
    func mapped(_ ids: [String: String]) -> RelevanceDevSet {
        var mapped = self
        mapped.queries = queries.compactMap { query in
            ids[query.itemID].map {
                Query(itemID: $0, title: query.title, duplicates: Set(query.duplicates.compactMap { ids[$0] }))
            }
        }
        return mapped
    }

    public static func load() throws -> RelevanceDevSet {
        let root = Fixture.repositoryRoot + "/samples/"
        let text = try String(contentsOfFile: root + "gitbugs-hadoop-queries.jsonl", encoding: .utf8)
        var queries: [Query] = []
        for line in text.split(separator: "\n") {
            guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                let id = object["query_id"] as? String, let title = object["title"] as? String,
                let duplicates = object["duplicates"] as? [String]
            else { continue }
            queries.append(Query(itemID: id, title: title, duplicates: Set(duplicates)))
        }
        return RelevanceDevSet(queries: queries, itemsPath: root + "gitbugs-hadoop.jsonl.gz")
    }
}

/// The words of a bug's title as the task asks: split at anything but letters and digits, stop words and repeats
/// dropped (ignoring case), each as written (FTS5 lowercases them; Spotlite reads `NativeAzureFsOutputStream` as a
/// compound, as a person would type it).
public enum TaskWords {
    /// A common English stop-word list (the NLTK/SMART core): function words only, no domain words.
    public static let stopWords: Set<String> = Set(
        """
        a about above after again against all am an and any are as at be because been before being below between \
        both but by can could did do does doing down during each few for from further had has have having he her \
        here hers herself him himself his how i if in into is it its itself just me more most my myself no nor not \
        now of off on once only or other our ours ourselves out over own same she should so some such than that \
        the their theirs them themselves then there these they this those through to too under until up very was \
        we were what when where which while who whom why will with you your yours yourself yourselves
        """.split(separator: " ").map(String.init))

    public static func words(_ text: String) -> [String] {
        var seen = Set<String>()
        return text.split(whereSeparator: { !($0.isLetter || $0.isNumber) }).map(String.init)
            .filter { !stopWords.contains($0.lowercased()) && seen.insert($0.lowercased()).inserted }
    }
}

/// Recall@10 and MRR@10 over a set of queries.
public struct RelevanceScores: Sendable, CustomStringConvertible {
    public var recall = 0.0
    public var reciprocalRank = 0.0
    public var queries = 0

    /// Adds one query's ranking (the query's own item already left out).
    public mutating func add(ranked: [String], relevant: Set<String>) {
        let top = Array(ranked.prefix(10))
        recall += Double(top.filter(relevant.contains).count) / Double(max(1, relevant.count))
        if let first = top.firstIndex(where: relevant.contains) { reciprocalRank += 1 / Double(first + 1) }
        queries += 1
    }

    public var meanRecall: Double { queries == 0 ? 0 : recall / Double(queries) }
    public var meanReciprocalRank: Double { queries == 0 ? 0 : reciprocalRank / Double(queries) }
    public var description: String {
        String(format: "R@10 %.3f  MRR@10 %.3f", meanRecall, meanReciprocalRank)
    }
}

/// Where a relevance run's store gets the dev set's bugs from.
public enum RelevanceSource: Sendable {
    /// The converted JSON Lines (`samples/gitbugs-hadoop.jsonl.gz`), as `spotlite import` reads it.
    case jsonLines
    /// GitBugs' own Jira CSV (`samples/gitbugs-hadoop-bugs.csv.gz`) through `import --from jira-csv`, its duplicate
    /// pairs (`samples/gitbugs-hadoop-duplicates.csv`) added as Jira's `Outward issue link (Duplicate)` columns.
    case jiraCSV
}

/// One store with the dev set imported, its Spotlite index, and the FTS5 baseline table beside it.
public final class RelevanceRun {
    /// The dev set, its ids those of this run's store.
    public let devSet: RelevanceDevSet
    public let store: TrackerStore
    public let indexer: StoreIndexer
    let directory: String
    let fts5: FTS5
    let session: SearchSession

    public init(devSet: RelevanceDevSet, source: RelevanceSource = .jsonLines) throws {
        directory = NSTemporaryDirectory() + "spotlite-relevance-\(getpid())-\(source)"
        try? FileManager.default.removeItem(atPath: directory)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        store = try TrackerStore.create(at: directory + "/tracker.sqlite")
        let items = try Self.decompressed(devSet.itemsPath, into: directory + "/items.jsonl")
        switch source {
        case .jsonLines:
            _ = try store.importJSONLines(from: try ImportSource(path: items))
            self.devSet = devSet
        case .jiraCSV:
            let root = Fixture.repositoryRoot + "/samples/"
            let csv = try Self.decompressed(root + "gitbugs-hadoop-bugs.csv.gz", into: directory + "/bugs.csv")
            let linked = try Self.withDuplicateLinks(
                csv: Data(contentsOf: URL(fileURLWithPath: csv)),
                pairs: Data(contentsOf: URL(fileURLWithPath: root + "gitbugs-hadoop-duplicates.csv")))
            _ = try store.importExport(linked, format: .jiraCSV, fileName: "gitbugs-hadoop-bugs.csv")
            self.devSet = devSet.mapped(try Self.sameBugs(jsonLines: items, in: store))
        }
        indexer = StoreIndexer(store: store, indexPath: directory + "/index")
        try indexer.rebuild()
        session = SearchSession(indexer)
        fts5 = try FTS5(storePath: store.path)
        try fts5.rebuild()
    }

    deinit { try? FileManager.default.removeItem(atPath: directory) }

    /// Spotlite's `similar` on the bug itself (its title and detail), items only; with each hit's likeness and
    /// whether it is a known duplicate, for choosing the `--check-duplicates` threshold.
    public func spotliteSimilar(
        maxWords: Int = SearchRanking.similarWords, feedbackWeight: Double = SearchRanking.similarFeedbackWeight,
        byLinks: Bool = false
    ) throws
        -> (scores: RelevanceScores, likeness: [(likeness: Double, duplicate: Bool)])
    {
        var scores = RelevanceScores()
        var likeness: [(likeness: Double, duplicate: Bool)] = []
        var options = SearchOptions()
        options.snippets = false
        options.request.limit = 12
        for query in devSet.queries {
            // The query bug's own links are its answers: left out of its ranking.
            let uri = store.uri(.item, query.itemID)
            let outcome = try indexer.similar(
                to: uri, options: options, maxWords: maxWords, feedbackWeight: feedbackWeight,
                links: byLinks ? .groups(ignoring: [uri]) : .off)
            let items = outcome.hits.filter { if case .item = $0.entity { return true } else { return false } }
            scores.add(ranked: items.map(\.uri.entityID), relevant: query.duplicates)
            for hit in items.prefix(5) {
                likeness.append((hit.likeness ?? 0, query.duplicates.contains(hit.uri.entityID)))
            }
        }
        return (scores, likeness)
    }

    /// FTS5 fed the same text: the bug's title and detail words (stop words and repeats dropped, the first 256),
    /// quoted and joined with OR, by bm25 with the title weighted 2.
    public func fts5Similar() throws -> RelevanceScores {
        var scores = RelevanceScores()
        for query in devSet.queries {
            guard let item = try store.read({ try $0.item(id: query.itemID) }) else { continue }
            let words = TaskWords.words(item.title + " " + item.detail).prefix(256)
            let match = words.map { "\"\($0)\"" }.joined(separator: " OR ")
            let ranked = words.isEmpty ? [] : try fts5.search(match, limit: 11).filter { $0 != query.itemID }
            scores.add(ranked: ranked, relevant: query.duplicates)
        }
        return scores
    }

    /// One line per query (SPOTLITE_RELEVANCE_TRACE set): the rank of the first duplicate, and the query.
    static func trace(_ system: String, _ query: RelevanceDevSet.Query, _ ranked: [String]) {
        let rank = Array(ranked.prefix(10)).firstIndex(where: query.duplicates.contains).map { String($0 + 1) } ?? "-"
        print("trace \(system) \(query.itemID) \(rank) \(query.title)")
    }

    /// The CSV export with Jira's `Outward issue link (Duplicate)` columns added, one for each pair (`Issue id,
    /// Duplicate id`; a duplicate field may list several ids, comma-separated) of its row's issue.
    static func withDuplicateLinks(csv: Data, pairs: Data) throws -> Data {
        var duplicates: [String: [String]] = [:]
        for row in try CSVRows.parse([UInt8](pairs)).dropFirst() where row.fields.count >= 2 {
            for id in row.fields[1].split(separator: ",") {
                duplicates[row.fields[0], default: []].append(id.trimmingCharacters(in: .whitespaces))
            }
        }
        let rows = try CSVRows.parse([UInt8](csv))
        guard let header = rows.first?.fields, let idColumn = header.firstIndex(of: "Issue id") else {
            throw CorpusError(message: "the GitBugs CSV has no header with an Issue id column")
        }
        let most = duplicates.values.map(\.count).max() ?? 0
        func line(_ fields: [String]) -> String {
            fields.map { "\"" + $0.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }.joined(separator: ",") + "\r\n"
        }
        var text = line(header + Array(repeating: "Outward issue link (Duplicate)", count: most))
        for row in rows.dropFirst() {
            let links = duplicates[row.fields[idColumn]] ?? []
            text += line(row.fields + links + Array(repeating: "", count: most - links.count))
        }
        return Data(text.utf8)
    }

    /// The store's item for each item of the converted JSON Lines, by title and detail (white space runs read as
    /// one space, as the conversion changed line ends); bugs with the same text are paired in id order.
    static func sameBugs(jsonLines path: String, in store: TrackerStore) throws -> [String: String] {
        func key(_ title: String, _ detail: String) -> String {
            (title + "\n" + detail).split(whereSeparator: \.isWhitespace).joined(separator: " ")
        }
        var converted: [String: [String]] = [:]
        for line in try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n") {
            guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                object["kind"] as? String == "item", let id = object["id"] as? String,
                let title = object["title"] as? String
            else { continue }
            converted[key(title, object["detail"] as? String ?? ""), default: []].append(id)
        }
        var imported: [String: [String]] = [:]
        for item in try store.read({ try $0.items(ids: try $0.itemIDs()) }).values {
            imported[key(item.title, item.detail), default: []].append(item.id)
        }
        var ids: [String: String] = [:]
        for (text, mine) in converted {
            for (from, to) in zip(mine.sorted(), (imported[text] ?? []).sorted()) { ids[from] = to }
        }
        return ids
    }

    static func decompressed(_ path: String, into output: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["sh", "-c", "gzip -dc \"$0\" > \"$1\"", path, output]
        try process.run()
        process.waitUntilExit()
        return output
    }

    /// Spotlite on the title-OR task, ranked as `ranking` says.
    public func spotliteTitleOR(ranking: SearchRanking = .standard) throws -> RelevanceScores {
        var scores = RelevanceScores()
        var options = SearchOptions()
        options.snippets = false
        options.request.limit = 11
        options.request.ranking = ranking
        for query in devSet.queries {
            let words = TaskWords.words(query.title)
            guard !words.isEmpty else {
                scores.add(ranked: [], relevant: query.duplicates)
                continue
            }
            // Items only, as the FTS5 table holds (the store's one project, Hadoop, is a document too).
            let outcome = try session.search("kind:item (" + words.joined(separator: " OR ") + ")", options: options)
            let ranked = outcome.hits.map(\.uri.entityID).filter { $0 != query.itemID }
            scores.add(ranked: ranked, relevant: query.duplicates)
            if ProcessInfo.processInfo.environment["SPOTLITE_RELEVANCE_TRACE"] != nil {
                Self.trace("spotlite", query, ranked)
            }
        }
        return scores
    }

    /// FTS5 on the title-OR task: the same words, each quoted, joined with OR, by bm25 with the title weighted 2.
    public func fts5TitleOR() throws -> RelevanceScores {
        var scores = RelevanceScores()
        for query in devSet.queries {
            let words = TaskWords.words(query.title)
            guard !words.isEmpty else {
                scores.add(ranked: [], relevant: query.duplicates)
                continue
            }
            let match = words.map { "\"\($0)\"" }.joined(separator: " OR ")
            let ranked = try fts5.search(match, limit: 11).filter { $0 != query.itemID }
            scores.add(ranked: ranked, relevant: query.duplicates)
            if ProcessInfo.processInfo.environment["SPOTLITE_RELEVANCE_TRACE"] != nil {
                Self.trace("fts5", query, ranked)
            }
        }
        return scores
    }

    /// The short-query task: the first `count` words of the title (stop words dropped), typed as they are — every
    /// word must match — as a person recalling a bug types them. The two systems rank the same matches, so this
    /// measures ranking alone (for Spotlite: the title field and the exact-phrase bonus).
    public func spotliteFirstWords(_ count: Int) throws -> RelevanceScores {
        var scores = RelevanceScores()
        var options = SearchOptions()
        options.snippets = false
        options.request.limit = 11
        for query in devSet.queries {
            let words = Array(TaskWords.words(query.title).prefix(count))
            // No kind:item here: a filter would turn the phrase bonus off. The project is left out below.
            let text = words.map { $0.filter { $0.isLetter || $0.isNumber } }.joined(separator: " ")
            let outcome = words.isEmpty ? nil : try? session.search(text, options: options)
            let items = (outcome?.hits ?? []).filter { if case .item = $0.entity { true } else { false } }
            let ranked = items.map(\.uri.entityID).filter { $0 != query.itemID }
            scores.add(ranked: ranked, relevant: query.duplicates)
        }
        return scores
    }

    /// FTS5 on the short-query task: the same words, each quoted (every one must match).
    public func fts5FirstWords(_ count: Int) throws -> RelevanceScores {
        var scores = RelevanceScores()
        for query in devSet.queries {
            let words = Array(TaskWords.words(query.title).prefix(count))
            let match = words.map { "\"\($0.filter { $0.isLetter || $0.isNumber })\"" }.joined(separator: " ")
            let ranked = words.isEmpty ? [] : try fts5.search(match, limit: 11).filter { $0 != query.itemID }
            scores.add(ranked: ranked, relevant: query.duplicates)
        }
        return scores
    }
}
