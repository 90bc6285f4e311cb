import HTTPTypes
import Hummingbird

extension DashboardRouter {
    private static let fetchSite = HTTPField.Name("Sec-Fetch-Site")
    private static let forwardedHost = HTTPField.Name("X-Forwarded-Host")

    /// Why a form post to `/login` or `/logout` is refused as coming from another site, or `nil`.
    ///
    /// A page elsewhere could post the sign-in form with its own viewer's secret (the browser
    /// then reads the dashboard as that viewer) or sign a viewer out. Browsers say where a form
    /// came from (`Sec-Fetch-Site`, `Origin`) and a page cannot forge either; a request with
    /// neither (curl, a script, an old browser) is let through. Behind a proxy the origin is
    /// compared with `X-Forwarded-Host` as well as `Host`: a browser's form cannot set it.
    static func crossSite(_ request: Request) -> DashboardError? {
        let refusal = DashboardError(.forbidden, "a sign-in form may only be posted from the dashboard's own pages")
        if let name = fetchSite, let site = request.headers[name]?.lowercased(),
            site == "cross-site" || site == "same-site"
        {
            return refusal
        }
        guard let origin = request.headers[.origin] else { return nil }
        // "scheme://host[:port]"; "null" (a sandboxed or privacy-sensitive context) is refused.
        guard let separator = origin.range(of: "://") else { return refusal }
        let host = origin[separator.upperBound...].lowercased()
        var allowed: [String] = []
        if let authority = request.head.authority { allowed.append(authority.lowercased()) }
        if let name = forwardedHost, let forwarded = request.headers[name] {
            allowed += forwarded.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        }
        return allowed.contains(host) ? nil : refusal
    }
}
