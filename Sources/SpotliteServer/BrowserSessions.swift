import Foundation

/// The way a browser into a server that needs its token: the page exchanges the token once
/// (`POST /v1/session` with `Authorization: Bearer …`) for a session cookie, which the browser then sends with every
/// request it makes, the page's links included — where a bearer header can be sent only by the page's own script.
///
/// The cookie is `HttpOnly` (no script reads it) and `SameSite=Strict` (no other site's page makes the browser send
/// it); a state-changing request that the cookie authorizes must also carry the session's CSRF token in
/// `X-CSRF-Token`, which only the page's own script can read (`GET /v1/session`). Sessions live in memory: a restart
/// ends them, and the page asks for a new one with the token in its address.
final class BrowserSessions: @unchecked Sendable {
    struct Session {
        var csrf: String
        var lastUsed: Date
    }

    static let cookieName = "spotlite_session"
    /// The most sessions kept: the least recently used goes first.
    static let maximumSessions = 1_000

    private let lock = NSLock()
    private var sessions: [String: Session] = [:]
    private let idleSeconds: Double
    private let now: @Sendable () -> Date

    init(idleSeconds: Double, now: @escaping @Sendable () -> Date = Date.init) {
        self.idleSeconds = idleSeconds
        self.now = now
    }

    /// Makes a session; returns its id (the cookie's value) and its CSRF token.
    func open() -> (id: String, csrf: String) {
        let id = Self.randomToken()
        let csrf = Self.randomToken()
        lock.lock()
        defer { lock.unlock() }
        dropExpired()
        if sessions.count >= Self.maximumSessions,
            let oldest = sessions.min(by: { $0.value.lastUsed < $1.value.lastUsed })?.key
        {
            sessions[oldest] = nil
        }
        sessions[id] = Session(csrf: csrf, lastUsed: now())
        return (id, csrf)
    }

    /// The CSRF token of the live session `id`, which it marks used; nil for an unknown or expired one.
    func csrf(of id: String) -> String? {
        lock.lock()
        defer { lock.unlock() }
        guard var session = sessions[id] else { return nil }
        guard now().timeIntervalSince(session.lastUsed) < idleSeconds else {
            sessions[id] = nil
            return nil
        }
        session.lastUsed = now()
        sessions[id] = session
        return session.csrf
    }

    func close(_ id: String) {
        lock.lock()
        sessions[id] = nil
        lock.unlock()
    }

    private func dropExpired() {
        let limit = now().addingTimeInterval(-idleSeconds)
        sessions = sessions.filter { $0.value.lastUsed > limit }
    }

    /// The cookie's name for requests sent to `authority` (their `Host`): one per port, since a browser sends a
    /// host's cookies to all its ports, and two servers on one machine must not replace each other's sessions.
    static func cookieName(authority: String?) -> String {
        let port = authority.flatMap { text -> Substring? in
            guard let colon = text.lastIndex(of: ":"), !text.hasSuffix("]") else { return nil }
            return text[text.index(after: colon)...]
        }
        return cookieName + "_" + (port.map(String.init) ?? "80")
    }

    /// The session id a `Cookie` header carries for `authority`, if any.
    static func sessionID(inCookies header: String?, authority: String?) -> String? {
        guard let header else { return nil }
        let name = cookieName(authority: authority)
        for pair in header.split(separator: ";") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            if parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces) == name {
                return parts[1].trimmingCharacters(in: .whitespaces)
            }
        }
        return nil
    }

    /// 32 random bytes from the system's generator, as hex.
    static func randomToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }
}
