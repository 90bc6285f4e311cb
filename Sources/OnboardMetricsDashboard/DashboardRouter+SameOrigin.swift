import HTTPTypes
import Hummingbird

extension DashboardRouter {
    private static let fetchSite = HTTPField.Name("Sec-Fetch-Site")
    private static let forwardedHost = HTTPField.Name("X-Forwarded-Host")

    /// Why a form post to `/login` or `/logout` is refused as coming from another site, or `nil`.
    ///
    /// A page elsewhere could post the sign-in form with its own viewer's secret (the browser
    /// then reads the dashboard as that viewer) or sign a viewer out. Browsers say where a form
    /// came from and a page cannot forge it. `Sec-Fetch-Site` decides where a browser sends it
    /// (every current one): `same-origin` or `none` (typed, bookmarked) go ahead. Only without it
    /// is `Origin` compared with `Host` or a proxy's `X-Forwarded-Host` (a form cannot set that
    /// header), default ports aside: behind a proxy that rewrites `Host` the origin would not
    /// match, and a privacy setting may make a same-origin post's `Origin` "null". A request
    /// with neither header (curl, a script) goes ahead.
    static func crossSite(_ request: Request) -> DashboardError? {
        let refusal = DashboardError(.forbidden, "a sign-in form may only be posted from the dashboard's own pages")
        if let name = fetchSite, let site = request.headers[name] {
            return ["same-origin", "none"].contains(site.lowercased()) ? nil : refusal
        }
        guard let origin = request.headers[.origin] else { return nil }
        // "scheme://host[:port]"; "null" (a sandboxed page) is refused.
        guard let separator = origin.range(of: "://") else { return refusal }
        let scheme = origin[..<separator.lowerBound].lowercased()
        let host = Self.withoutDefaultPort(origin[separator.upperBound...].lowercased(), scheme: scheme)
        var allowed: [String] = []
        if let authority = request.head.authority { allowed.append(authority.lowercased()) }
        if let name = forwardedHost, let forwarded = request.headers[name] {
            allowed += forwarded.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        }
        return allowed.contains { Self.withoutDefaultPort($0, scheme: scheme) == host } ? nil : refusal
    }

    /// `host:80` for http and `host:443` for https as just `host`, as browsers write an origin.
    private static func withoutDefaultPort(_ host: String, scheme: String) -> String {
        let port = scheme == "https" ? ":443" : scheme == "http" ? ":80" : nil
        guard let port, host.hasSuffix(port) else { return host }
        return String(host.dropLast(port.count))
    }
}
