/// The files of `Resources/`, built into the binary by SwiftPM (`.embedInCode` in Package.swift): edit those files.
enum EmbeddedResources {
    /// The OpenAPI 3.1 description of the server's API, served at `/openapi.json`.
    static let openAPI = String(decoding: PackageResources.openapi_json, as: UTF8.self)
    /// The search page's script, served at `/assets/search.js`.
    static let searchScript = String(decoding: PackageResources.search_js, as: UTF8.self)
    /// The style of every page, served at `/assets/page.css`.
    static let pageStyle = String(decoding: PackageResources.page_css, as: UTF8.self)
}
