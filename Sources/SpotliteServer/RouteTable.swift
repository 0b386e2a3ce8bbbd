import HTTPTypes
import Hummingbird
import Synchronization

/// Which methods each route path is served with, recorded as the routes are registered: Hummingbird's router
/// answers a path it has under another method as if the path were not there, and a client is owed a 405 with `Allow`.
final class RouteTable: Sendable {
    private let paths = Mutex<[(segments: [Substring], methods: Set<HTTPRequest.Method>)]>([])

    func record(_ path: RouterPath, _ method: HTTPRequest.Method) {
        let segments = path.description.split(separator: "/")
        paths.withLock { paths in
            if let index = paths.firstIndex(where: { $0.segments == segments }) {
                paths[index].methods.insert(method)
            } else {
                paths.append((segments, [method]))
            }
        }
    }

    /// The methods `path` is served with (HEAD wherever GET is), in a fixed order; empty when no route has it.
    func methods(for path: String) -> [HTTPRequest.Method] {
        let asked = path.split(separator: "/")
        let found = paths.withLock { paths in
            paths.filter { route in
                route.segments.count == asked.count
                    && zip(route.segments, asked).allSatisfy { $0.hasPrefix("{") && $0.hasSuffix("}") || $0 == $1 }
            }
            .reduce(into: Set<HTTPRequest.Method>()) { $0.formUnion($1.methods) }
        }
        let all: Set<HTTPRequest.Method> = found.contains(.get) ? found.union([.head]) : found
        return [.get, .head, .post, .put, .patch, .delete].filter { all.contains($0) }
    }
}

/// A router that records each route's path and method in a ``RouteTable`` as it registers it.
struct RecordingRouter: RouterMethods {
    typealias Context = ServerContext
    let router: Router<ServerContext>
    let table: RouteTable

    @discardableResult func on<Responder: HTTPResponder>(
        _ path: RouterPath, method: HTTPRequest.Method, responder: Responder
    ) -> Self where Responder.Context == Context {
        router.on(path, method: method, responder: responder)
        table.record(path, method)
        return self
    }

    @discardableResult func add(middleware: any MiddlewareProtocol<Request, Response, Context>) -> Self {
        router.add(middleware: middleware)
        return self
    }
}
