import Foundation
import SearchIndex
import TestSupport
import Testing
import TrackerStore

@testable import Indexer

/// Every way of searching runs one pipeline (SearchPipeline): a store searched once, in a kept session, and as a set
/// of one store answer alike — the same hits and scores, snippets, totals, facets with their labels, spelling
/// suggestions and project suggestions — and a set names the store of each hit.
@Suite struct SearchPipelineTests {
    let directory = TemporaryDirectory("pipeline")
    let store: TrackerStore
    let indexer: StoreIndexer

    init() throws {
        store = try TrackerStore.create(at: directory.file("tracker.sqlite"))
        indexer = StoreIndexer(store: store, indexPath: directory.file("index"))
        let home = try store.addProject(title: "Home renovation")
        let garden = try store.addProject(title: "Garden")
        try store.addItem(projectID: home.id, title: "Fix the leaking tap", detail: "The washer is worn", priority: 3)
        try store.addItem(projectID: home.id, title: "Paint the ceiling", detail: "After the tap is fixed")
        try store.addItem(projectID: garden.id, title: "Mend the hose tap", priority: 1)
        try store.addItem(projectID: garden.id, title: "Plant tomatoes")
        try store.addItem(projectID: garden.id, title: "Water the tomatoes", detail: "Every evening")
    }

    /// What a user sees of an outcome, store names aside.
    struct Seen: Equatable {
        var hits: [String]
        var scores: [Double]
        var snippets: [String?]
        var total: Int
        var facets: [FacetCounts]
        var suggestion: String?
        var projectSuggestions: [ProjectSuggestion]
    }

    static func seen(_ outcome: SearchOutcome) -> Seen {
        Seen(
            hits: outcome.hits.map(\.uri.description), scores: outcome.hits.map(\.score),
            snippets: outcome.hits.map(\.snippet?.marked), total: outcome.total, facets: outcome.facets,
            suggestion: outcome.suggestion, projectSuggestions: outcome.projectSuggestions)
    }

    @Test(arguments: ["tap", "leaking tap", "tapp", "tomatoex", "ta*", "project:Gardn tap", "priority:3 OR hose"])
    func aStoreAloneInASessionAndAsASetAnswerAlike(query: String) throws {
        var options = SearchOptions()
        options.request.facets = [.project, .priority, .status]
        let alone = try indexer.search(query, options: options)
        let session = SearchSession(indexer)
        let inSession = try session.search(query, options: options)
        let again = try session.search(query, options: options)
        let set = StoreSet(members: [.init(name: "home", open: { [indexer] in indexer })])
        let asSet = try set.search(query, options: options)
        #expect(Self.seen(inSession) == Self.seen(alone), "\(query)")
        #expect(Self.seen(again) == Self.seen(alone), "\(query)")
        #expect(Self.seen(asSet) == Self.seen(alone), "\(query)")
        #expect(!alone.isAcrossStores && asSet.isAcrossStores)
        #expect(asSet.hits.allSatisfy { $0.store == "home" } && alone.hits.allSatisfy { $0.store == nil })
    }

    /// A quoted phrase is highlighted in the snippet where the text has it, compound words in it included (the
    /// index holds "time_t" followed by its parts "time t", which the text does not).
    @Test func aPhraseWithCompoundWordsIsHighlightedInTheSnippet() throws {
        let home = try #require(try store.read { try $0.allProjects() }.first)
        try store.addItem(
            projectID: home.id, title: "Update the libraries",
            detail: "Disables a check. Uses 64-bit time_t in testsuite on 32-bit systems. Fixes rseq support.")
        for query in [#""64-bit time_t""#, #""time_t in testsuite""#] {
            let outcome = try indexer.search(query)
            #expect(outcome.hits.count == 1, "\(query)")
            let snippet = outcome.hits.first?.snippet
            #expect(snippet?.matches == [String(query.dropFirst().dropLast())], "\(query): \(snippet?.plain ?? "")")
        }
    }

    /// Text that holds the snippet's own mark characters shows them as U+FFFD, and only the matched word is
    /// highlighted, wherever the marks fall (before, after and within the eight bytes a scan reads at once).
    @Test func marksInTheStoresTextDoNotHighlight() throws {
        let home = try #require(try store.read { try $0.allProjects() }.first)
        let befores = ["", "ab", "abcdefgh", "abcdefghijklmnop x"]
        for before in befores {
            try store.addItem(
                projectID: home.id, title: "Marked text",
                detail: before + "\u{2}fake\u{3} mark then the numbat appears \u{3}after\u{2} more words")
        }
        let hits = try indexer.search("numbat").hits
        #expect(hits.count == befores.count)
        for hit in hits {
            let snippet = try #require(hit.snippet)
            #expect(snippet.matches == ["numbat"], "\(snippet.marked.debugDescription)")
            #expect(snippet.plain.contains("fake\u{FFFD} mark"), "\(snippet.plain.debugDescription)")
            #expect(snippet.plain.contains("\u{FFFD}after\u{FFFD}"), "\(snippet.plain.debugDescription)")
        }
        #expect(!Array("plain text of some length\u{1}".utf8).withUnsafeBufferPointer(Snippet.holdsMark))
        #expect(Array("plain text of some length\u{3}".utf8).withUnsafeBufferPointer(Snippet.holdsMark))
    }

    /// A long detail's snippet comes from where the query matched, however far into the text, and a word written in
    /// capitals is found as typed in lower case; a detail without the word (matched by its title) still gives one.
    @Test func aLongDetailsSnippetShowsWhereTheQueryMatchedHoweverFarIn() throws {
        let home = try #require(try store.read { try $0.allProjects() }.first)
        let filler = String(repeating: "Routine maintenance of the packaging scripts. ", count: 2_000)  // 94 KB
        try store.addItem(
            projectID: home.id, title: "Rebuild everything",
            detail: filler + "The QUOKKAS module fails to load on armel. " + filler)
        try store.addItem(projectID: home.id, title: "Wombats in the title only", detail: filler)
        let far = try #require(try indexer.search("quokkas").hits.first?.snippet)
        #expect(far.matches == ["QUOKKAS"] && far.plain.contains("module fails to load"), "\(far.plain)")
        let titleOnly = try #require(try indexer.search("wombats").hits.first?.snippet)
        #expect(titleOnly.matches.isEmpty && titleOnly.plain.contains("packaging scripts"), "\(titleOnly.plain)")

        let text = "Abc x ünïcode, then Leaking and leaks"
        let place = { (words: [String]) in
            text.utf8.withContiguousStorageIfAvailable { StoreIndexer.firstPlace(of: words, in: $0) } ?? nil
        }
        #expect(place(["leaki"]) == text.utf8.count - 17)
        #expect(place(["ünïc"]) == 6 && place(["zzz"]) == nil && place([]) == nil)
    }

    /// The scan for a snippet's place tests eight bytes at a time: it must find what looking at every byte finds,
    /// at every offset of a word in the text, with few first bytes to look for or many (one at a time then).
    @Test func theFirstPlaceOfAWordIsFoundAtEveryOffset() {
        func naive(_ words: [String], _ bytes: [UInt8]) -> Int? {
            let patterns = words.map { Array($0.utf8) }.filter { !$0.isEmpty }
            for position in bytes.indices {
                for pattern in patterns where pattern.count <= bytes.count - position {
                    let folded = bytes[position..<position + pattern.count].map { $0.isASCIIUppercase ? $0 | 0x20 : $0 }
                    if folded == pattern { return position }
                }
            }
            return nil
        }
        let wordSets = [
            ["quo"], ["leaki", "ünïc"], ["zzz"], ["abc", "def", "ghi", "jkl", "mno", "pqr", "stu", "vwx", "yzq"],
        ]
        for filler in ["a-b c", "Ünï ", "x"] {
            for offset in 0..<40 {
                for words in wordSets {
                    for found in ["QUOkka", "leaking", "ünïcode", "Stuff", "YZq"] {
                        let text = String(repeating: filler, count: offset) + found + " tail"
                        let bytes = Array(text.utf8)
                        let fast = bytes.withUnsafeBufferPointer { StoreIndexer.firstPlace(of: words, in: $0) }
                        #expect(fast == naive(words, bytes), "\(words) in \(text)")
                    }
                }
            }
        }
    }

    /// A store cuts a long detail to its snippet window before a page decodes it, and the page cuts what it is given
    /// again (a remote store's rows come whole): the window of a window must be itself, wherever the query's word is,
    /// whatever characters lie at its ends, however long the word.
    @Test func theSnippetWindowOfAWindowIsItself() {
        var generator = SystemRandomNumberGenerator()
        let pieces = ["a", "quokka ", "ü", "日本", "🐨", " ", "Quokkas. ", "x"]
        let longWord = String(repeating: "é", count: 500)
        for round in 0..<300 {
            var text = ""
            let length = Int.random(in: 900...3_000, using: &generator)
            while text.utf8.count < length { text += pieces.randomElement(using: &generator)! }
            if round % 10 == 0 { text += longWord + " tail" }
            let query = round % 10 == 0 ? longWord : ["quokkas", "日本語", "zzz", "ü x"][round % 4]
            let words = StoreIndexer.snippetWords(query)
            let window = StoreIndexer.snippetWindow(text, words: words)
            #expect(StoreIndexer.snippetWindow(window, words: words) == window, "round \(round)")
            #expect(window.utf8.count <= StoreIndexer.snippetWindowLength + 3 && text.contains(window))
        }
    }

    @Test func theSpellingSuggestionAndProjectSuggestionsComeFromThePipeline() throws {
        let misspelt = try indexer.search("tomatoex")
        #expect(misspelt.suggestion == "tomatoes")
        var options = SearchOptions()
        options.correct = true
        let corrected = try indexer.search("tomatoex", options: options)
        #expect(corrected.searchedSuggestion && corrected.hits.count == 2)
        let project = try indexer.search("project:Gardn tap")
        #expect(project.projectSuggestions == [ProjectSuggestion(typed: "Gardn", titles: ["Garden"])])
    }
}
