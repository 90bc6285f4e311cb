import ArgumentParser
import Foundation
import OnboardMetrics

/// The output options of the report commands: `--format` with `html` besides the plain formats,
/// and `--output FILE` for the HTML page.
///
/// HTML is a CLI-level format rather than a `ReportFormat` case because other commands switch
/// over `ReportFormat` exhaustively and have no HTML rendering.
struct HTMLOutputOptions: ParsableArguments {
    /// `ReportFormat`'s cases and `html`.
    enum Format: String, CaseIterable, ExpressibleByArgument {
        case text, json, csv, markdown, html

        /// The plain format; `nil` for HTML.
        var plain: ReportFormat? { ReportFormat(rawValue: rawValue) }
    }

    @Option(help: "Output format: text, json, csv, markdown, or html (a self-contained page written to --output).")
    var format: Format = .text

    @Option(name: .customLong("output"), help: "The file --format html writes.")
    var outputFile = "report.html"

    @Flag(name: .shortAndLong, help: "Print no progress or status lines on stderr.")
    var quiet = false

    var console: Console { Console(quiet: quiet) }

    /// Prints the report in a plain format, or writes its HTML page to `--output` and says where.
    /// - Throws: an encoding error (JSON), or a file error when the page cannot be written.
    func emit(rendered: (ReportFormat) throws -> String, html: () -> String) throws {
        guard let plain = format.plain else {
            try Self.write(html(), to: outputFile)
            console.status("wrote \(outputFile)")
            return
        }
        console.print(try rendered(plain))
    }

    /// Writes a page atomically, so a reader never sees half a report.
    static func write(_ page: String, to path: String) throws {
        try Data(page.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
    }
}
