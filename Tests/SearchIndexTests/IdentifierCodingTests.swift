import Foundation
import SearchIndex
import TestSupport
import Testing

@Suite struct IdentifierCodingTests {
    static let store = "caa11ecb-58b1-493c-a3f5-35491c90030c"
    static let other = "0f3c2a4e-1b2d-4c5e-8f70-9a8b7c6d5e4f"
    static let base = "tracker://\(store)/"
    let coding = IdentifierCoding(base: base)

    @Test func aURIOfTheStoreIsKeptShortAndComesBackWhole() {
        for kind in ["item", "project", "message"] {
            let uri = Self.base + kind + "/953a4663-deee-5949-939c-dafc5108b393"
            let term = coding.term(uri)
            let value = coding.value(uri)
            #expect(term.utf8.count == 24, "\(term)")
            #expect(value.count == 18)
            #expect(coding.identifier(term: Substring(term)) == uri)
            #expect(coding.identifier(value: value) == uri)
        }
    }

    @Test func theShortFormNamesNoStoreSoCopiesCollapse() {
        let copy = IdentifierCoding(base: "tracker://\(Self.other)/")
        let id = "/item/953a4663-deee-5949-939c-dafc5108b393"
        #expect(coding.value("tracker://\(Self.store)" + id) == copy.value("tracker://\(Self.other)" + id))
        // Put back under each index's own base.
        #expect(copy.identifier(value: coding.value("tracker://\(Self.store)" + id)) == "tracker://\(Self.other)" + id)
    }

    @Test func anythingElseIsKeptAsItIs() {
        let uuid = "953a4663-deee-5949-939c-dafc5108b393"
        let others = [
            "tracker://\(Self.other)/item/\(uuid)",  // another store
            Self.base + "item/953A4663-DEEE-5949-939C-DAFC5108B393",  // not the canonical (lowercase) form
            Self.base + "item/953a4663deee5949939cdafc5108b393",  // no dashes
            Self.base + "task/\(uuid)",  // a kind the index does not know
            Self.base + "item/\(uuid)/more",
            Self.base + "item/",
            "home", "", "tracker://x/item/1",
        ]
        for identifier in others {
            #expect(coding.term(identifier) == identifier)
            #expect(coding.value(identifier) == Array(identifier.utf8))
            #expect(coding.identifier(term: Substring(identifier)) == identifier)
            #expect(coding.identifier(value: Array(identifier.utf8)) == identifier)
        }
        // Without a base nothing is shortened.
        let plain = IdentifierCoding(base: "")
        #expect(plain.term(Self.base + "item/\(uuid)") == Self.base + "item/\(uuid)")
    }

    @Test func anIdentifierThatLooksShortIsEscapedNotMistaken() {
        let short = coding.term(Self.base + "item/953a4663-deee-5949-939c-dafc5108b393")
        // Someone indexes the short form itself as an identifier: it must come back as given, not as the URI.
        for identifier in [short, "~", "~~x", "\u{1}", "\u{1}i0123456789abcdef"] {
            #expect(coding.identifier(term: Substring(coding.term(identifier))) == identifier)
            #expect(coding.identifier(value: coding.value(identifier)) == identifier)
        }
        #expect(coding.term(short) == "~" + short)
    }

    @Test func anIndexKeepsItsBaseAndItsIdentifiersShort() throws {
        let directory = TemporaryDirectory("identifier-coding")
        let path = directory.file("index")
        let uri = Self.base + "item/953a4663-deee-5949-939c-dafc5108b393"
        let project = Self.base + "project/1b4e28ba-2fa1-4d3b-a3f5-ef19b5a7633b"
        let foreign = "tracker://\(Self.other)/item/77777777-2fa1-4d3b-a3f5-ef19b5a7633b"
        do {
            let index = try SearchableIndex(path: path, identifierBase: Self.base)
            try index.indexSearchableItems([
                SearchableIndexTests.item(uri, domain: project, title: "Paint the fence"),
                SearchableIndexTests.item(foreign, domain: project, title: "Paint the gate"),
            ])
        }
        // Opened again with another base (or none), the index keeps the one it was made with.
        let index = try SearchableIndex(path: path, identifierBase: "tracker://\(Self.other)/")
        #expect(index.coding.base == Self.base)
        let reader = try SearchReader(path: path)
        #expect(try reader.metadata(SearchIndexLayout.identifierBaseKey) == Self.base)
        let parser = try SearchQueryParser()
        let hits = try reader.search(try parser.parse("paint"), SearchRequest(limit: 10)).hits.map(\.uniqueIdentifier)
        #expect(Set(hits) == [uri, foreign])
        let byProject = try reader.search(
            try parser.parse("project:\(project)"), SearchRequest(limit: 10, facets: [.project]))
        #expect(byProject.total == 2)
        let projectCounts = byProject.facets.first?.values.map(\.value)
        #expect(projectCounts == [project])
        #expect(Set(try reader.fingerprints().keys) == [uri, foreign])
        // Deleting by identifier and by domain finds the short terms.
        try index.deleteSearchableItems(withIdentifiers: [uri])
        try reader.reopen()
        #expect(
            try reader.search(try parser.parse("paint"), SearchRequest(limit: 10)).hits.map(\.uniqueIdentifier) == [
                foreign
            ])
        try index.deleteSearchableItems(withDomainIdentifiers: [project])
        try reader.reopen()
        #expect(try reader.documentCount() == 0)
    }
}
