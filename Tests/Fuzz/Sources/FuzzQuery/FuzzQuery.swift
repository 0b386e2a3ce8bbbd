import Foundation
import SearchIndex

/// One index for every input: a few documents with every field a filter reads.
nonisolated(unsafe) let reader: SearchReader = {
    let path = NSTemporaryDirectory() + "spotlite-fuzz-\(getpid())"
    do {
        let index = try SearchableIndex(path: path)
        try index.indexSearchableItems(
            (0..<30).map { number in
                SearchableItem(
                    uniqueIdentifier: "tracker://s/item/\(number)",
                    domainIdentifier: "tracker://s/project/\(number % 3)",
                    attributeSet: SearchableItemAttributeSet(
                        title: "fix leak \(number) café", contentDescription: "the tap leaks near the boiler \(number)",
                        containerTitle: "Project \(number % 3)", priority: number % 3 + 1, isCompleted: number % 2 == 0,
                        createdAt: 1_700_000_000 + Int64(number) * 86_400, modifiedAt: 1_700_000_000))
            })
        try index.close()
        return try SearchReader(path: path)
    } catch {
        fatalError("cannot build the fuzzing index: \(error)")
    }
}()

/// Any bytes, as a query in either language, either search or fail as a syntax error; anything else (another
/// error, a trap, a crash) is a finding.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzQuery(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    for spotlight in [false, true] {
        do {
            let words = try SearchQueryParser(reader: reader)
            let query = spotlight ? try SpotlightQueryParser(words: words).parse(text) : try words.parse(text)
            _ = try reader.search(query, SearchRequest(limit: 5, sort: .priority, facets: [.project, .status]))
        } catch let error as SearchIndexError where error.code == .querySyntax {
            continue
        } catch {
            fatalError("\(text.debugDescription) (spotlight: \(spotlight)): \(error)")
        }
    }
    return 0
}
