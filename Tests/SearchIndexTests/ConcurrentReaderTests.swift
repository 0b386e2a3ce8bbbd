import Foundation
import TestSupport
import Testing

@testable import SearchIndex

/// A reader walking every document while a writer commits again and again goes on from where it was on each newer
/// revision, instead of failing with Xapian's `DatabaseModifiedError` when a few immediate retries run out.
@Suite struct ConcurrentReaderTests {
    static func items(_ count: Int, round: Int) -> [SearchableItem] {
        (0..<count).map { number in
            SearchableItem(
                uniqueIdentifier: "tracker://s/item/\(number)", domainIdentifier: "tracker://s/project/\(number % 7)",
                attributeSet: SearchableItemAttributeSet(
                    title: "item \(number) round \(round)", contentDescription: "words for \(number) in round \(round)",
                    containerTitle: "P", priority: 2, isCompleted: false, createdAt: 0, modifiedAt: Int64(round)))
        }
    }

    @Test func aWalkOfEveryDocumentOutlastsAWriterThatNeverPauses() throws {
        let directory = TemporaryDirectory("concurrent")
        let path = directory.file("index")
        let count = 10_000
        do {
            let index = try SearchableIndex(path: path, durable: false)
            try index.indexSearchableItems(Self.items(count, round: 0))
            try index.close()
        }
        let stop = Flag()
        let writer = Thread {
            guard let index = try? SearchableIndex(path: path, durable: false) else { return }
            var round = 1
            while !stop.isSet {
                // Many small commits: each one may recycle blocks an older revision's reader still needs.
                for slice in stride(from: 0, to: count, by: 100) {
                    let items = Self.items(count, round: round)[slice..<min(count, slice + 100)]
                    try? index.indexSearchableItems(Array(items))
                }
                round += 1
            }
            try? index.close()
        }
        writer.start()
        defer { stop.set() }
        let reader = try SearchReader(path: path)
        for _ in 0..<40 {
            let fingerprints = try reader.fingerprints()
            #expect(fingerprints.count == count)
        }
    }
}
