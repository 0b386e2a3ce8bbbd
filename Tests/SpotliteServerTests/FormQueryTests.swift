import Testing

@testable import SpotliteServer

/// A URL's query decoded as a browser's form encodes it, and refused in one line where it is not.
@Suite struct FormQueryTests {
    @Test func plusIsASpaceAndEscapesAreUTF8Bytes() throws {
        let query = try FormQuery("q=leaking+tap%20caf%C3%A9&sort=%2Bmodified&flag&q=second&%6C%69mit=5&&empty=")
        #expect(query["q"] == "leaking tap café")
        // An escaped plus stays a plus; a name without "=" is ""; names are decoded too; the first of a name counts.
        #expect(query["sort"] == "+modified")
        #expect(query["flag"] == "")
        #expect(query["limit"] == "5")
        #expect(query["empty"] == "")
        #expect(query["missing"] == nil)
        #expect(try FormQuery(nil)["q"] == nil)
        #expect(try FormQuery("")["q"] == nil)
        #expect(try FormQuery("q=%e2%80%a6%F0%9F%94%8D")["q"] == "…🔍")
    }

    @Test func aMalformedEscapeOrBytesThatAreNotUTF8AreRefused() throws {
        for (query, parameter) in [
            ("q=%", "q"), ("q=%4", "q"), ("q=%G1", "q"), ("q=ab%2", "q"), ("limit=1&q=%E9", "q"),
            ("q=%C3%28", "q"), ("q=%ED%A0%80", "q"), ("%ZZ=1", "%ZZ"),
        ] {
            #expect(throws: Problem.self, "\(query)") { try FormQuery(query) }
            do {
                _ = try FormQuery(query)
            } catch let problem as Problem {
                #expect(problem.detail.hasPrefix("the parameter '\(parameter)' is not URL-encoded UTF-8"), "\(query)")
            }
        }
    }
}
