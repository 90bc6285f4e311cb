import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import OnboardMetricsAnalysis
import OnboardMetricsRendering

/// The dashboard's routes on Hummingbird. Every page but the sign-in form needs a viewer; every
/// page has a JSON twin (`?format=json` or `Accept: application/json`).
package enum DashboardRouter {
    package static func make(_ dashboard: Dashboard) -> Router<DashboardRequestContext> {
        let router = Router(context: DashboardRequestContext.self)
        router.add(middleware: RequestLogMiddleware(logger: dashboard.logger, trustProxy: dashboard.trustProxy))
        router.get("/healthz") { _, _ in text(200, "ok\n", type: "text/plain; charset=utf-8") }
        router.get("/login") { request, _ in
            let next = safeNext(DashboardQuery.parse(request.uri.query).value("next"))
            return page(200, DashboardPage.login(message: nil, next: next, asOf: dashboard.clock()))
        }
        router.post("/login") { request, context in
            let form = DashboardQuery.parse(String(buffer: try await request.body.collect(upTo: 16 * 1024)))
            let next = safeNext(form.value("next"))
            if let refusal = crossSite(request) {
                return page(
                    refusal.code.status,
                    DashboardPage.login(message: refusal.message, next: next, asOf: dashboard.clock()))
            }
            switch try await dashboard.signIn(
                name: form.value("name") ?? "", secret: form.value("secret") ?? "",
                client: dashboard.client(request, context))
            {
            case .success(let token):
                var response = Response(status: .seeOther, headers: [.location: next])
                response.setCookie(dashboard.sessionCookie(token, maxAge: Int(dashboard.viewers.sessionLifetime)))
                return response
            case .failure(let error):
                var response = page(
                    error.code.status, DashboardPage.login(message: error.message, next: next, asOf: dashboard.clock()))
                if let wait = error.retryAfter { response.headers[.retryAfter] = String(wait) }
                return response
            }
        }
        router.post("/logout") { request, _ in
            if let refusal = crossSite(request) {
                return text(refusal.code.status, refusal.message + "\n", type: "text/plain; charset=utf-8")
            }
            if let token = request.cookies[Dashboard.cookieName]?.value { dashboard.viewers.endSession(token) }
            var response = Response(status: .seeOther, headers: [.location: "/login"])
            response.setCookie(dashboard.sessionCookie("", maxAge: 0))
            return response
        }
        router.get("/") { request, context in
            try await signedIn(dashboard, request, context) { query in try await home(dashboard, query: query) }
        }
        router.get("/flows/:id") { request, context in
            let id = context.parameters.get("id") ?? ""
            return try await signedIn(dashboard, request, context) { query in
                try await flow(dashboard, id: try decoded(id, "flow id"), query: query, path: request.uri.path)
            }
        }
        for page in ["retention", "correlation", "paths"] {
            router.get("/flows/:id/\(page)") { request, context in
                let id = context.parameters.get("id") ?? ""
                return try await signedIn(dashboard, request, context) { query in
                    try await why(
                        dashboard, page: page, id: try decoded(id, "flow id"), query: query, path: request.uri.path)
                }
            }
        }
        for page in ["trends", "compare", "users"] {
            router.get("/flows/:id/\(page)") { request, context in
                let id = context.parameters.get("id") ?? ""
                return try await signedIn(dashboard, request, context) { query in
                    try await flowReport(
                        dashboard, page: page, id: try decoded(id, "flow id"), query: query, path: request.uri.path)
                }
            }
        }
        router.get("/discovery") { request, context in
            try await signedIn(dashboard, request, context) { query in
                try await discovery(dashboard, query: query, path: request.uri.path)
            }
        }
        router.get("/funnel") { request, context in
            try await signedIn(dashboard, request, context) { query in
                try await adHocFunnel(dashboard, query: query, path: request.uri.path)
            }
        }
        router.get("/experiments/:key") { request, context in
            let key = context.parameters.get("key") ?? ""
            return try await signedIn(dashboard, request, context) { query in
                try await experiment(
                    dashboard, key: try decoded(key, "experiment key"), query: query, path: request.uri.path)
            }
        }
        return router
    }

    /// A path segment as the client meant it: the router hands it over as it came, percent-encoded
    /// (the pages' own links encode ids, ``DashboardPage/path(_:_:)``), so `my%20flow` is `my flow`.
    /// - Throws: `DashboardError` (400) for an escape that is not UTF-8 percent-encoding.
    static func decoded(_ segment: String, _ what: String) throws -> String {
        guard let decoded = segment.removingPercentEncoding else {
            throw DashboardError(.badRequest, "the \(what) in the path is not valid percent-encoding")
        }
        return decoded
    }

    /// A page's JSON twin, made only when JSON is asked for (a `/users` list's is 139 MB at 10M
    /// events), without its final newline, which the response adds.
    enum JSONTwin {
        /// Made whole.
        case whole(() throws -> String)
        /// Written into the response a piece at a time as each is made: made whole, 569k rows
        /// were one 139 MB string, and a copy of it to send.
        case pieces(UnitListReport.Pieces)
    }

    /// What a page handler returns: its HTML, and its JSON twin.
    struct Answer {
        var html: String
        var json: JSONTwin
        var newestEvent: Date?
        /// When set, the JSON twin is this error instead (a page that shows a form in HTML, such
        /// as `/funnel` without steps, has no report to give a script).
        var jsonRefusal: DashboardError? = nil
    }

    /// Runs `body` for a signed-in viewer; answers 401, 429 or a redirect to the sign-in form otherwise.
    static func signedIn(
        _ dashboard: Dashboard, _ request: Request, _ context: DashboardRequestContext,
        _ body: (DashboardQuery) async throws -> Answer
    ) async throws -> Response {
        let query = DashboardQuery.parse(request.uri.query)
        let json = wantsJSON(request, query)
        let caller: Dashboard.Caller
        do {
            caller = try await dashboard.caller(request, context)
        } catch {
            return failure(dashboard.visible(error, path: request.uri.path), dashboard, json: json, signedIn: false)
        }
        switch caller {
        case .refused(let error):
            return failure(error, dashboard, json: json, signedIn: false)
        case .anonymous where !json:
            let next = request.uri.path + (request.uri.query.map { "?" + $0 } ?? "")
            return Response(
                status: .seeOther, headers: [.location: "/login?next=" + DashboardQuery.escape(safeNext(next))])
        case .anonymous:
            return failure(
                DashboardError(.unauthorized, "sign in with a viewer's name and secret (HTTP Basic)"), dashboard,
                json: true, signedIn: false)
        case .viewer:
            do {
                let answer = try await body(query)
                if json, let refusal = answer.jsonRefusal {
                    return failure(refusal, dashboard, json: true, signedIn: true)
                }
                var response: Response
                switch (json, answer.json) {
                case (false, _): response = page(200, answer.html)
                case (true, .whole(let make)): response = text(200, try make() + "\n", type: "application/json")
                case (true, .pieces(let pieces)): response = streamed(200, pieces, type: "application/json")
                }
                if let newest = answer.newestEvent, let name = HTTPField.Name("X-Newest-Event") {
                    response.headers[name] = ISO8601DateFormatter().string(from: newest)
                }
                return response
            } catch {
                return failure(dashboard.visible(error, path: request.uri.path), dashboard, json: json, signedIn: true)
            }
        }
    }

    static func home(_ dashboard: Dashboard, query: DashboardQuery) async throws -> Answer {
        let now = dashboard.clock()
        async let newest = dashboard.data.newestEvent()
        var discovery = DiscoveryOptions()
        discovery.since = now.addingTimeInterval(-30 * 86_400)
        let highlightOptions = discovery
        async let highlights = dashboard.data.report(reader: highlightOptions.reader, people: false) {
            DiscoveryAggregator(options: highlightOptions)
        }
        let flows = try await dashboard.data.flows()
        let summaries = try await dashboard.data.summaries(flows: flows, now: now)
        let experiments = try await dashboard.data.experiments()
        func window(_ totals: FunnelReport.Totals?) -> DashboardHome.Window {
            DashboardHome.Window(
                started: totals?.started ?? 0, completed: totals?.completed ?? 0, completionRate: totals?.completionRate
            )
        }
        let home = DashboardHome(
            asOf: now, newestEvent: try await newest,
            flows: flows.map {
                let summary = summaries[$0.id]
                return DashboardHome.Flow(
                    id: $0.id, version: $0.version, last7Days: window(summary?.last7Days),
                    last30Days: window(summary?.last30Days),
                    dailyStarted: summary?.dailyStarted ?? Array(repeating: 0, count: 30))
            },
            experiments: experiments.map { DashboardHome.Experiment(key: $0.key, variants: $0.variants.map(\.name)) },
            highlights: try await highlights.highlights.map {
                DashboardHome.Highlight(
                    highlight: $0.highlight, feature: $0.feature, shown: $0.shown, discovered: $0.discovered,
                    rate: $0.rate)
            })
        return Answer(
            html: DashboardPage.home(home), json: .whole { try ReportJSON.encode(home) }, newestEvent: home.newestEvent)
    }

    static func flow(_ dashboard: Dashboard, id: String, query: DashboardQuery, path: String) async throws -> Answer {
        let options = try query.funnelOptions()
        let now = dashboard.clock()
        guard let definition = try await dashboard.data.flow(id: id) else {
            throw DashboardError(.notFound, "no stored flow has the id \(id.debugDescription)")
        }
        async let newest = dashboard.data.newestEvent()
        let report = try await dashboard.data.funnel(flow: definition, options: options, now: now)
        let newestEvent = try await newest
        return Answer(
            html: DashboardPage.flow(report, query: query, path: path, asOf: now, newestEvent: newestEvent),
            json: .whole { try report.rendered(.json) }, newestEvent: newestEvent)
    }

    /// `/flows/ID/retention`, `/correlation`, `/paths`: the reports that explain drop-off, each
    /// equal to its CLI command's JSON for the same options.
    static func why(_ dashboard: Dashboard, page: String, id: String, query: DashboardQuery, path: String)
        async throws -> Answer
    {
        let now = dashboard.clock()
        guard let definition = try await dashboard.data.flow(id: id) else {
            throw DashboardError(.notFound, "no stored flow has the id \(id.debugDescription)")
        }
        let report: any HTMLReportSection & Sendable
        let json: JSONTwin
        switch page {
        case "retention":
            let options = try query.retentionOptions()
            let built = try await dashboard.data.report(reader: options.reader, people: true) {
                RetentionAggregator(flow: definition, options: options, now: now)
            }
            (report, json) = (built, .whole { try built.rendered(.json) })
        case "correlation":
            let options = try query.correlationOptions()
            if let step = options.step, definition.index(of: step) == nil {
                throw DashboardError(.badRequest, definition.unknownStepMessage(step))
            }
            let built = try await dashboard.data.report(reader: options.reader, people: options.funnel.unit == .user) {
                try CorrelationAggregator(flow: definition, options: options, now: now)
            }
            (report, json) = (built, .whole { try built.rendered(.json) })
        default:
            let options = try query.pathOptions()
            let built = try await dashboard.data.report(reader: options.reader, people: true) {
                PathAggregator(flow: definition, options: options, now: now)
            }
            (report, json) = (built, .whole { try built.rendered(.json) })
        }
        let newestEvent = try await dashboard.data.newestEvent()
        return Answer(
            html: DashboardPage.report(
                report, page: page, parameters: reportParameters[page] ?? "", query: query, path: path, asOf: now,
                newestEvent: newestEvent),
            json: json, newestEvent: newestEvent)
    }

    static func experiment(_ dashboard: Dashboard, key: String, query: DashboardQuery, path: String) async throws
        -> Answer
    {
        guard let stored = try await dashboard.data.experiment(key: key) else {
            throw DashboardError(.notFound, "no stored experiment has the key \(key.debugDescription)")
        }
        var options = try query.experimentOptions(key: key)
        options.experiment = stored
        let now = dashboard.clock()
        async let newest = dashboard.data.newestEvent()
        let report = try await dashboard.data.experiment(options: options)
        let newestEvent = try await newest
        return Answer(
            html: DashboardPage.experiment(report, query: query, path: path, asOf: now, newestEvent: newestEvent),
            json: .whole { try report.rendered(.json) }, newestEvent: newestEvent)
    }

    // MARK: Answers

    static func failure(_ error: DashboardError, _ dashboard: Dashboard, json: Bool, signedIn: Bool) -> Response {
        var response: Response
        if json {
            let body =
                (try? ReportJSON.encode(["error": ["code": error.code.description, "message": error.message]])) ?? "{}"
            response = text(error.code.status, body + "\n", type: "application/json")
        } else {
            response = page(error.code.status, DashboardPage.error(error, asOf: dashboard.clock(), signedIn: signedIn))
        }
        if error.code == .unauthorized {
            response.headers[.wwwAuthenticate] = "Basic realm=\"OnboardMetrics dashboard\", charset=\"UTF-8\""
        }
        if let wait = error.retryAfter { response.headers[.retryAfter] = String(wait) }
        return response
    }

    static func page(_ status: Int, _ html: String) -> Response {
        var response = text(status, html, type: "text/html; charset=utf-8")
        // No scripts, no outside fetches, no framing: the pages need none of them.
        response.headers[.contentSecurityPolicy] =
            "default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'self'; frame-ancestors 'none'"
        return response
    }

    static func text(_ status: Int, _ body: String, type: String) -> Response {
        Response(
            status: HTTPResponse.Status(code: status),
            headers: [.contentType: type, .cacheControl: "no-store", .xContentTypeOptions: "nosniff"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
    }

    /// A response whose body is `pieces`, written as each is made, ended by a newline as `text`
    /// bodies of JSON are.
    static func streamed(_ status: Int, _ pieces: UnitListReport.Pieces, type: String) -> Response {
        Response(
            status: HTTPResponse.Status(code: status),
            headers: [.contentType: type, .cacheControl: "no-store", .xContentTypeOptions: "nosniff"],
            body: ResponseBody { writer in
                for index in 0..<pieces.count {
                    let piece = try pieces.piece(index)
                    try await writer.write(ByteBuffer(string: index == pieces.count - 1 ? piece + "\n" : piece))
                }
                try await writer.finish(nil)
            })
    }

    /// JSON when asked by `?format=json`, or by an Accept that names JSON and not HTML.
    static func wantsJSON(_ request: Request, _ query: DashboardQuery) -> Bool {
        if let format = query.value("format") { return format == "json" }
        let accept = request.headers[.accept] ?? ""
        return accept.contains("application/json") && !accept.contains("text/html")
    }

    /// Where to go after signing in: a path on this server only (never `//host` or a URL).
    static func safeNext(_ next: String?) -> String {
        guard let next, next.hasPrefix("/"), !next.hasPrefix("//"), !next.contains("\\"),
            !next.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else { return "/" }
        return next
    }
}
