import Foundation
import TrackerStore

/// Any bytes, as an import file, parse or fail with a line error; every timestamp the parser accepts is one the
/// store reads back to the same instant. Anything else (another error, a trap, a crash) is a finding.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzImport(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Data(bytes: data, count: size)
    do {
        let records = try JSONLines.parse(
            bytes, now: "2024-01-01T00:00:00Z", makeID: { "11111111-1111-4111-8111-111111111111" })
        for (_, record) in records {
            let times: [String]
            switch record {
            case .project(let project): times = [project.createdAt, project.modifiedAt]
            case .item(let item): times = [item.createdAt, item.modifiedAt]
            }
            for time in times where Timestamp.seconds(time) == nil || Timestamp.normalize(time) != time {
                fatalError("accepted a timestamp the store cannot read back: \(time)")
            }
        }
    } catch {
        // A line error is the expected outcome of bad input.
    }
    return 0
}
