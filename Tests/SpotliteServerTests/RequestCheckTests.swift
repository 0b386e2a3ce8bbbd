import Foundation
import NIOCore
import TestSupport
import Testing
import TrackerStore

@testable import SpotliteServer

/// The server's checks of what a request carries, and its escaping of what a page shows, in-process.
@Suite struct RequestCheckTests {
    /// Every hostile string of the corpus, escaped for a page: no markup survives, whichever grapheme cluster a `<`
    /// hides in, and no control character is sent raw. (A `Character`-walking escaper let `U+0600 <` through.)
    @Test func htmlEscapingLeavesNoMarkupAndNoControlInAnyHostileString() throws {
        for text in try HostileStrings.all() {
            let escaped = HTML.escaped(text)
            #expect(!escaped.unicodeScalars.contains { "<>\"'".unicodeScalars.contains($0) }, "\(escaped)")
            #expect(!escaped.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
            // Nothing is lost: the references read back (byte by byte: a `String` search would miss `&lt;` whose
            // `;` a combining mark joins) to the text with its controls made visible.
            #expect(Self.unescaped(escaped) == VisibleText.escaped(text))
        }
        #expect(HTML.escaped("\u{600}<img src=x>") == "\u{600}&lt;img src=x&gt;")
        #expect(HTML.escaped("a\nb", keepingLineBreaks: true) == "a\nb")
        #expect(HTML.escaped("a\nb") == "a\\nb")
    }

    /// HTML's five references read back, over UTF-8 bytes.
    static func unescaped(_ html: String) -> String {
        let references: [(String, String)] = [
            ("&lt;", "<"), ("&gt;", ">"), ("&quot;", "\""), ("&#39;", "'"), ("&amp;", "&"),
        ]
        var bytes = Array(html.utf8)[...]
        var out: [UInt8] = []
        while let first = bytes.first {
            if let (reference, character) = references.first(where: { bytes.starts(with: $0.0.utf8) }) {
                out += character.utf8
                bytes = bytes.dropFirst(reference.utf8.count)
            } else {
                out.append(first)
                bytes = bytes.dropFirst()
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    @Test(arguments: [
        ("127.0.0.1:7700", true), ("127.0.0.1", true), ("localhost:7700", true), ("LOCALHOST.:7700", true),
        ("[::1]:7700", true), ("192.168.1.20:7700", true), ("tracker.example:7700", true),
        ("attacker.example:7700", false), ("127.0.0.1.attacker.example", false),
        ("localhost.attacker.example:80", false),
        ("[::1", false), ("localhost:port", false), ("", false),
    ])
    func onlyTheNamesTheServerAnswersAsPass(authority: String, passes: Bool) {
        let hosts = HostNames(listenHost: "127.0.0.1", allowed: ["tracker.example"])
        if passes {
            #expect(throws: Never.self) { try hosts.check(authority) }
        } else {
            #expect(throws: Problem.self) { try hosts.check(authority) }
        }
    }

    @Test func aRebindingNameIsMisdirectedAndAMissingHostIsBad() {
        let hosts = HostNames(listenHost: "127.0.0.1", allowed: [])
        #expect { try hosts.check("attacker.example:7700") } throws: { ($0 as? Problem)?.status.code == 421 }
        #expect { try hosts.check(nil) } throws: { ($0 as? Problem)?.status.code == 400 }
    }

    @Test func theBearerSchemeIsCaseInsensitiveAndTheTokenExact() {
        let token = "0123456789abcdef0123456789abcdef"
        for scheme in ["Bearer", "bearer", "BEARER", "bEaReR"] {
            #expect(ServerOptions.authorizes("\(scheme) \(token)", token: token))
        }
        #expect(!ServerOptions.authorizes("Bearer \(token)x", token: token))
        #expect(!ServerOptions.authorizes("Bearer \(token.dropLast())", token: token))
        #expect(!ServerOptions.authorizes("Basic \(token)", token: token))
        #expect(!ServerOptions.authorizes("Bearer", token: token))
        #expect(!ServerOptions.authorizes(nil, token: token))
    }

    /// Loopback is decided by the address a name resolves to, which is the one bound.
    @Test func loopbackIsAnAddressNotAName() throws {
        for address in ["127.0.0.1", "127.1.2.3", "::1", "::ffff:127.0.0.1"] {
            #expect(ServerOptions.isLoopback(try SocketAddress(ipAddress: address, port: 0)), "\(address)")
        }
        for address in ["0.0.0.0", "10.0.0.1", "192.0.2.1", "::", "2001:db8::1", "::ffff:10.0.0.1"] {
            #expect(!ServerOptions.isLoopback(try SocketAddress(ipAddress: address, port: 0)), "\(address)")
        }
    }

    @Test func aSessionCookieIsReadForItsPortOnlyAndExpires() {
        let clock = TestClock()
        let sessions = BrowserSessions(idleSeconds: 60, now: { clock.now })
        let made = sessions.open()
        let header = "theme=dark; spotlite_session_7700=\(made.id); spotlite_session_7701=other"
        #expect(BrowserSessions.sessionID(inCookies: header, authority: "127.0.0.1:7700") == made.id)
        #expect(BrowserSessions.sessionID(inCookies: header, authority: "127.0.0.1:7701") == "other")
        #expect(BrowserSessions.sessionID(inCookies: header, authority: "127.0.0.1:7702") == nil)
        #expect(sessions.csrf(of: made.id) == made.csrf)
        #expect(sessions.csrf(of: "forged") == nil)
        clock.advance(59)
        #expect(sessions.csrf(of: made.id) == made.csrf)  // used: its idle time starts again
        clock.advance(61)
        #expect(sessions.csrf(of: made.id) == nil)
    }
}

/// A clock the test moves.
final class TestClock: @unchecked Sendable {
    private let lock = NSLock()
    private var current = Date(timeIntervalSince1970: 1_700_000_000)
    var now: Date { lock.withLock { current } }
    func advance(_ seconds: Double) { lock.withLock { current += seconds } }
}
