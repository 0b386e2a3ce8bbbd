import Foundation
import TestSupport
import Testing

@testable import SearchIndex

/// Once a page is full, Xapian's matcher prunes by the weight a document must reach to enter it: it skips what cannot
/// reach that weight, and turns an OR into an AND_MAYBE, and an AND_MAYBE into an AND, as the weight rises. Pruning
/// must change how much of the index a search reads, never which documents make its page or what they weigh.
@Suite struct PruningTests {
    let directory = TemporaryDirectory("pruning")

    /// Every kind of query the fielded ranking rewrites (words, OR, NOT, phrases of common words looked up by their
    /// pair, title phrases, a phrase ORed with a word, phrases and NEAR left to Xapian), on pages small enough that
    /// most searches prune, is answered the same when every match is weighed. Equal weights at the page's lowest may
    /// come in another order (Xapian sums a bound in another order than a weight, and may rule out a document that
    /// only ties), so the test asks for the same weights in the same order, and the same documents above the lowest.
    @Test(arguments: [300, 1_500]) func aPagePrunedByTheWeightItMustReachIsThePageOfEveryMatchWeighed(items: Int) throws
    {
        var texts = RandomTexts()
        let path = directory.file("index-\(items)")
        let index = try SearchableIndex(path: path, commonWords: RandomTexts.common)
        try index.indexSearchableItems(WordPairsTests.items(0..<items, &texts))
        var queries: [String] = []
        for _ in 0..<40 {
            let words = (0..<Int.random(in: 2...3, using: &texts.random)).map { _ in texts.word() }
            queries += [
                words[0], words.joined(separator: " "), words.joined(separator: " OR "), words[0] + " -" + words[1],
                "\"" + words.joined(separator: " ") + "\"", "title:\"" + words.prefix(2).joined(separator: " ") + "\"",
                "\"" + words.prefix(2).joined(separator: " ") + "\" OR " + words[words.count - 1],
                "title:" + words[0] + " " + words[1],
                // Xapian's own sub-queries beside ours: phrases checked by positions, ORed, and NEAR.
                "\"" + words.joined(separator: " ") + "\" OR " + texts.word(),
                "\"" + words.prefix(2).joined(separator: " ") + "\" OR \"" + words.suffix(2).joined(separator: " ")
                    + "\"",
                "title:\"" + words.joined(separator: " ") + "\" OR " + words[0],
                words[0] + " NEAR " + words[1],
            ]
        }
        let requests = [SearchRequest(limit: 3), SearchRequest(limit: 10), SearchRequest(offset: 5, limit: 20)]
        for keepsTables in [false, true] {
            let reader = try SearchReader(path: path)
            reader.keepsTables = keepsTables
            for text in queries {
                let query = try SearchQueryParser().parse(text)
                for request in requests {
                    var every = try reader.matchOptions(for: request)
                    every.checkAtLeast = items
                    var pruned = every
                    pruned.checkAtLeast = request.end
                    let expected = try reader.search(query, request, options: every).hits
                    let found = try reader.search(query, request, options: pruned).hits
                    let context = "\(text), \(request.offset)+\(request.limit), tables: \(keepsTables)"
                    #expect(found.map(\.score).isApproximately(expected.map(\.score)), "\(context)")
                    let lowest = expected.last?.score ?? 0
                    let above = { (hits: [SearchHit]) in
                        hits.filter { $0.score > lowest + 1e-9 }.map(\.uniqueIdentifier)
                    }
                    #expect(above(found) == above(expected), "\(context)")
                }
            }
        }
    }
}

extension [Double] {
    fileprivate func isApproximately(_ other: [Double]) -> Bool {
        count == other.count && zip(self, other).allSatisfy { abs($0 - $1) < 1e-9 }
    }
}
