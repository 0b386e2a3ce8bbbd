import Foundation
import TestSupport
import Testing
import Xapian

@Suite struct XapianBridgeTests {
    let directory = TemporaryDirectory("xapian")

    func makeDocument(_ text: String, id: String) throws -> Document {
        let document = Document()
        try document.setData(id)
        try document.addBooleanTerm("Q" + id)
        let generator = try TermGenerator()
        try generator.setDocument(document)
        try generator.indexText(text)
        return document
    }

    @Test func documentsAreFoundByStemmedWordsAndReplacedByUniqueTerm() throws {
        let path = directory.file("db")
        let writer = try WritableDatabase(path: path)
        try writer.replaceDocument(uniqueTerm: "Qa", with: try makeDocument("the leaking taps", id: "a"))
        try writer.replaceDocument(uniqueTerm: "Qb", with: try makeDocument("a dry garden", id: "b"))
        try writer.replaceDocument(uniqueTerm: "Qa", with: try makeDocument("leaking pipes", id: "a"))
        try writer.commit()

        let reader = try Database(path: path)
        #expect(try reader.documentCount() == 2)
        let parser = QueryParser()
        try parser.setStemmer(language: "english")
        parser.setStemmingStrategy(.some)
        #expect(try reader.match(parser.parse("leak")).hits.map(\.text) == ["a"])
        #expect(try reader.match(parser.parse("tap")).hits.isEmpty)
    }

    @Test func compactionMergesDatabasesWithTheirMetadataAndHitsCanCarryAValue() throws {
        for (name, words) in [("one", ["leaking tap", "garden hose"]), ("two", ["leaking roof", "dry garden"])] {
            let writer = try WritableDatabase(path: directory.file(name))
            for (number, text) in words.enumerated() {
                let document = try makeDocument(text, id: "\(name)-\(number)")
                try document.addValue(Array("\(name)-\(number)".utf8), slot: 7)
                try writer.replaceDocument(uniqueTerm: "Q\(name)-\(number)", with: document)
            }
            try writer.setMetadata("source", name)
            try writer.commit()
            try writer.close()
        }
        try WritableDatabase.compact(
            from: [directory.file("one"), directory.file("two")], to: directory.file("merged"))

        let merged = try Database(path: directory.file("merged"))
        #expect(try merged.documentCount() == 4)
        #expect(try merged.metadata("source") == "one")  // the first source's value wins
        let parser = QueryParser()
        try parser.setStemmer(language: "english")
        var options = MatchOptions()
        options.hitValueSlot = 7
        options.sortKeys = [.init(slot: 7)]
        options.relevanceFirst = false
        #expect(try merged.match(parser.parse("leaking"), options: options).hits.map(\.text) == ["one-0", "two-0"])
        #expect(try merged.match(parser.parse("garden"), options: options).hits.map(\.text) == ["one-1", "two-1"])

        // The two opened as one (a multi-database): each hit and each facet count says which one it came from.
        let both = try Database(paths: [directory.file("one"), directory.file("two")])
        #expect(try both.metadata("source", part: 1) == "two")
        #expect(try both.metadata("source") == "one")
        #expect(throws: XapianError.self) { try both.metadata("source", part: 2) }
        options.facetSlots = [7]
        let found = try both.match(parser.parse("leaking"), options: options)
        #expect(found.hits.map { "\($0.text)@\($0.shard)" } == ["one-0@0", "two-0@1"])
        let counts = found.facets[7, default: []].map {
            "\(String(decoding: $0.value, as: UTF8.self))@\($0.shard)=\($0.count)"
        }
        #expect(Set(counts) == ["one-0@0=1", "two-0@1=1"])
        #expect(throws: XapianError.self) { try WritableDatabase.compact(from: [], to: directory.file("none")) }
    }

    @Test func aSecondWriterGetsALockError() throws {
        let path = directory.file("db")
        let first = try WritableDatabase(path: path)
        #expect(throws: XapianError.self) { _ = try WritableDatabase(path: path) }
        do {
            _ = try WritableDatabase(path: path)
        } catch {
            #expect(error.kind == .lock)
            #expect(error.errorClass == "DatabaseLockError")
        }
        try first.close()
        _ = try WritableDatabase(path: path)  // the lock is free again
    }

    @Test func openingAMissingDatabaseIsAnOpeningError() {
        do {
            _ = try Database(path: directory.file("nothing-here"))
            Issue.record("expected an error")
        } catch {
            #expect(error.kind == .opening)
            #expect(!error.message.isEmpty)
        }
    }

    @Test func aDamagedDatabaseIsReportedNotCrashed() throws {
        let path = directory.file("db")
        let writer = try WritableDatabase(path: path)
        try writer.replaceDocument(uniqueTerm: "Qa", with: try makeDocument("some words here", id: "a"))
        try writer.commit()
        try writer.close()
        for name in try FileManager.default.contentsOfDirectory(atPath: path) where name.hasSuffix(".glass") {
            try Data(repeating: 0xAB, count: 8192).write(to: URL(fileURLWithPath: path + "/" + name))
        }
        do {
            let reader = try Database(path: path)
            _ = try reader.match(Query(term: "some"))
            Issue.record("expected an error from a damaged database")
        } catch {
            #expect([.corrupt, .opening].contains(error.kind), "got \(error)")
        }
    }

    @Test func queryParserErrorsCrossTheBoundaryAsQuerySyntax() throws {
        let parser = QueryParser()
        try parser.addBooleanField("is") { value in
            value == "open" ? .term("XISopen") : .invalid("is:\(value) is not a status")
        }
        #expect(try parser.parse("is:open").description.contains("XISopen"))
        do {
            _ = try parser.parse("is:nonsense")
            Issue.record("expected a query syntax error")
        } catch {
            #expect(error.kind == .querySyntax)
            #expect(error.message == "is:nonsense is not a status")
        }
    }

    @Test func metadataAndTransactionsCommitTogether() throws {
        let path = directory.file("db")
        let writer = try WritableDatabase(path: path)
        try writer.beginTransaction()
        try writer.replaceDocument(uniqueTerm: "Qa", with: try makeDocument("one", id: "a"))
        try writer.setMetadata("cursor", "7")
        try writer.cancelTransaction()
        try writer.commit()
        let reader = try Database(path: path)
        #expect(try reader.documentCount() == 0)
        #expect(try reader.metadata("cursor") == "")

        try writer.beginTransaction()
        try writer.replaceDocument(uniqueTerm: "Qa", with: try makeDocument("one", id: "a"))
        try writer.setMetadata("cursor", "8")
        try writer.commitTransaction()
        try reader.reopen()
        #expect(try reader.documentCount() == 1)
        #expect(try reader.metadata("cursor") == "8")
    }

    @Test func termsAboveXapiansLimitFailCleanly() throws {
        let document = Document()
        try document.addBooleanTerm("Q" + String(repeating: "x", count: 300))
        let writer = try WritableDatabase(path: directory.file("db"))
        do {
            try writer.replaceDocument(uniqueTerm: "Qa", with: document)
            try writer.commit()
            Issue.record("expected Xapian to refuse a 301-byte term")
        } catch {
            #expect(error.kind == .invalidArgument, "got \(error)")
        }
    }

    @Test(arguments: [0.0, 1.0, -5.5, 1_700_000_000, 1e12])
    func sortableNumbersRoundTripAndKeepOrder(value: Double) {
        #expect(SortableNumber.decode(SortableNumber.encode(value)) == value)
        #expect(SortableNumber.encode(value).lexicographicallyPrecedes(SortableNumber.encode(value + 1)))
    }

    @Test func termWalkReportsEachUniqueTermWithItsValue() throws {
        let path = directory.file("db")
        let writer = try WritableDatabase(path: path)
        for id in ["b", "a", "c"] {
            let document = try makeDocument("text \(id)", id: id)
            try document.addValue(Array("v-\(id)".utf8), slot: 3)
            try writer.replaceDocument(uniqueTerm: "Q" + id, with: document)
        }
        try writer.commit()
        let rows = try Database(path: path).termsWithValue(prefix: "Q", slot: 3)
        #expect(rows.map(\.term) == ["Qa", "Qb", "Qc"])
        #expect(rows.map { String(decoding: $0.value, as: UTF8.self) } == ["v-a", "v-b", "v-c"])
    }
}

@Suite struct SnippetTests {
    @Test func snippetsMarkMatchedWords() throws {
        let directory = TemporaryDirectory("snippet")
        let writer = try WritableDatabase(path: directory.file("db"))
        let document = Document()
        try document.setData("a")
        let generator = try TermGenerator()
        try generator.setDocument(document)
        try generator.indexText("The kitchen tap drips all night")
        try writer.replaceDocument(uniqueTerm: "Qa", with: document)
        try writer.commit()
        let parser = QueryParser()
        try parser.setStemmer(language: "english")
        parser.setStemmingStrategy(.some)
        let matches = try Database(path: directory.file("db")).match(try parser.parse("tap"))
        let snippet = try matches.snippet(of: "The kitchen tap drips all night", highlight: ("\u{2}", "\u{3}"))
        #expect(snippet == "The kitchen \u{2}tap\u{3} drips all night")
    }
}
