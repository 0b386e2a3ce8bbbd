import Testing
import TrackerStore

@Suite struct TrackerURITests {
    static let store = "0f8fad5b-d9cb-469f-a165-70867728950e"
    static let item = "7c9e6679-7425-40de-944b-e07fc1f90ae7"

    @Test func canonicalURIsRoundTrip() throws {
        for kind in TrackerURI.Kind.allCases {
            let text = "tracker://\(Self.store)/\(kind.rawValue)/\(Self.item)"
            let uri = try TrackerURI(parsing: text)
            #expect(uri.kind == kind)
            #expect(uri.storeID == Self.store)
            #expect(uri.entityID == Self.item)
            #expect(uri.description == text)
        }
    }

    @Test(arguments: [
        ("", "expected tracker://<store-uuid>/item/<uuid> (or /project/<uuid>, /message/<uuid>)"),
        ("http://\(store)/item/\(item)", "the scheme must be 'tracker', not 'http'"),
        ("tracker://\(store)/task/\(item)", "the kind must be 'item', 'project' or 'message', not 'task'"),
        ("tracker://\(store)/item/\(item)/", "remove the trailing '/'"),
        (
            "tracker://\(store)/item",
            "expected three parts after tracker://: <store-uuid>/<item|project|message>/<uuid>"
        ),
        ("tracker://\(store)/item/\(item)?x=1", "a query or fragment is not allowed"),
        ("tracker://\(store.uppercased())/item/\(item)", "the store id '\(store.uppercased())' must be lowercase"),
        (
            "tracker://\(store)/item/1234",
            "the item id '1234' is not a UUID (expected 36 characters like 123e4567-e89b-42d3-a456-426614174000)"
        ),
        (
            "tracker://\(store)/project/7c9e6679x7425-40de-944b-e07fc1f90ae7",
            "the project id '7c9e6679x7425-40de-944b-e07fc1f90ae7' is not a UUID (a '-' belongs at position 9)"
        ),
        (
            "tracker://\(store)/item/7c9e6679-7425-40de-944b-e07fc1f90aeg",
            "the item id '7c9e6679-7425-40de-944b-e07fc1f90aeg' is not a UUID (character 36 is not a hex digit)"
        ),
        ("tracker:///item/\(item)", "the store id is empty"),
        (
            "tracker://\(store)/it/em/\(item)",
            "expected three parts after tracker://: <store-uuid>/<item|project|message>/<uuid>"
        ),
        (
            "tracker://\(store)a/item/\(item)",
            "the store id '\(store)a' is not a UUID (expected 36 characters like 123e4567-e89b-42d3-a456-426614174000)"
        ),
    ])
    func malformedURIsSayWhatIsWrong(text: String, reason: String) {
        do {
            _ = try TrackerURI(parsing: text)
            Issue.record("\(text) parsed")
        } catch {
            #expect(error.code == .invalidInput)
            #expect(error.message == "malformed URI '\(text)': \(reason)")
        }
    }
}
