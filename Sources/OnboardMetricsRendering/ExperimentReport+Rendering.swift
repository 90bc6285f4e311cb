import Foundation
import OnboardMetricsAnalysis
import OnboardMetricsStatistics

extension ExperimentReport {
    /// One row per metric and variant: counts and rate; for variants, the difference to control
    /// and the engine's verdict (frequentist: intervals, p-values; bayesian: chance to beat
    /// control, expected loss), and the units per arm still needed.
    public var table: TextTable {
        let percent = Int((level * 100).rounded())
        let bayesian = engine == .bayesian
        var header = ["metric", "variant", "units", "conversions", "rate", "\(percent)% CI", "abs. diff"]
        header +=
            bayesian
            ? ["rel. diff", "chance to beat control", "expected loss", "risk of control"]
            : sequential != nil
                ? [
                    "always-valid \(percent)% CI", "rel. diff", "\(percent)% CI", "always-valid p",
                    "\(correctionName) p-value",
                ]
                : ["\(percent)% CI", "rel. diff", "\(percent)% CI", "p-value", "\(correctionName) p-value"]
        header.append("units/arm still needed")
        var rows: [[String]] = []
        for result in metrics {
            for row in result.variants {
                let comparison = result.comparisons.first { $0.variant == row.variant }
                var line = [
                    result.metric.description, row.variant, String(row.units), String(row.conversions),
                    NumberText.percent(row.rate), NumberText.interval(row.interval),
                    comparison.map { NumberText.points($0.absoluteDifference) } ?? "control",
                ]
                if bayesian {
                    line += [
                        Self.relative(comparison?.relativeDifference),
                        NumberText.percent(comparison?.chanceToBeatControl),
                        Self.points(comparison?.expectedLoss), Self.points(comparison?.expectedLossOfControl),
                    ]
                } else {
                    let sequential = self.sequential != nil
                    line += [
                        Self.signedInterval(
                            sequential ? comparison?.sequentialInterval : comparison?.absoluteInterval),
                        Self.relative(comparison?.relativeDifference),
                        Self.signedInterval(comparison?.relativeInterval),
                        Self.pValue(sequential ? comparison?.sequentialPValue : comparison?.pValue),
                        Self.pValue(comparison?.adjustedPValue) + (comparison?.significant == true ? " *" : ""),
                    ]
                }
                line.append(comparison?.additionalUnitsPerArm.map(String.init) ?? "")
                rows.append(line)
            }
        }
        return TextTable(header: header, rows: rows, numericColumns: Set(2..<header.count))
    }

    /// The report in a format: text and Markdown hold a title, the sample-ratio check and the
    /// table; CSV the table; JSON everything (stable snake_case keys).
    public func rendered(_ format: ReportFormat) throws -> String {
        let title = "Experiment \(key) per \(unit.rawValue): \(units) \(unit.rawValue)s, control '\(control)'"
        switch format {
        case .json: return try ReportJSON.encode(self)
        case .csv: return table.csv
        case .markdown:
            return "## \(title)\n\n\(sampleRatioLine)\n\n\(table.markdown)\n\n\(footnote)"
                + funnelTables.map { "\n\n### \($0.title)\n\n\($0.table.markdown)" }.joined()
                + (funnels?.first.map { "\n\n" + $0.note } ?? "")
        case .text:
            guard units > 0 else { return title + "\n\nno exposure to '\(key)' in the data read" }
            return "\(title)\n\(sampleRatioLine)\n\n\(table.text)\n\n\(footnote)" + funnelText
        }
    }

    /// The multiple-comparison correction's short name: Holm or BH (Benjamini–Hochberg).
    var correctionName: String { correction == .holm ? "Holm" : "BH" }

    /// One table per `funnel:FLOW` metric: per variant and step, reached, the rate over every
    /// exposed unit, and the step-to-step rate (not tested; see the note).
    var funnelTables: [(title: String, table: TextTable)] {
        (funnels ?? []).map { funnel in
            let rows = funnel.variants.flatMap { row in
                funnel.steps.indices.map { index in
                    [
                        row.variant, funnel.steps[index], String(row.units), String(row.reached[index]),
                        NumberText.percent(row.rates[index]), NumberText.percent(row.stepToStep[index]),
                    ]
                }
            }
            return (
                "Funnel \(funnel.flow): each step over all exposed units (tested above as reached:STEP)",
                TextTable(
                    header: ["variant", "step", "exposed", "reached", "of exposed", "step to step (no test)"],
                    rows: rows, numericColumns: [2, 3, 4, 5])
            )
        }
    }

    /// The funnel tables and their note, as text.
    var funnelText: String {
        guard let funnels, let note = funnels.first?.note else { return "" }
        return funnelTables.map { "\n\n\($0.title)\n\n\($0.table.text)" }.joined() + "\n\n" + note
    }

    var sampleRatioLine: String {
        let split = zip(variants, sampleRatio.observed).map { "\($0) \($1)" }.joined(separator: ", ")
        let p = Self.pValue(sampleRatio.pValue)
        return sampleRatio.mismatch
            ? "SAMPLE RATIO MISMATCH (χ² p = \(p) < 0.001): \(split); check assignment and exposure logging before trusting these results"
            : "sample ratio ok (χ² p = \(p)): \(split)"
    }

    var footnote: String {
        let percent = Int((power * 100).rounded())
        var text =
            "units/arm still needed: to detect ±\(Self.points(mde)) from control's rate at α = \(alpha), \(percent)% power."
        if engine == .frequentist {
            text += " \(correctionName)-adjusted over \(comparisons) comparison(s); * = below α."
            if let sequential {
                text +=
                    " Sequential: \(sequential.method); tuned for N* = \(Int(sequential.tuning)) units "
                    + String(format: "(ρ = %.5f)", sequential.rho) + "; looks tolerated: \(sequential.looks)."
            }
        } else {
            text += " Beta(1, 1) priors; chance to beat control by a normal approximation."
        }
        if mixedUnits > 0 { text += " \(mixedUnits) user(s) saw several variants and are left out." }
        return text
    }

    static func points(_ value: Double?) -> String {
        value.map { String(format: "%.2f pp", $0 * 100) } ?? "–"
    }

    static func relative(_ value: Double?) -> String {
        value.map { String(format: "%+.1f%%", $0 * 100) } ?? "–"
    }

    static func signedInterval(_ interval: ConfidenceInterval?) -> String {
        guard let interval else { return "–" }
        return String(format: "%+.1f%% – %+.1f%%", interval.lower * 100, interval.upper * 100)
    }

    static func pValue(_ value: Double?) -> String {
        guard let value else { return "–" }
        return value < 0.0001 ? "<0.0001" : String(format: "%.4f", value)
    }
}
