import Foundation

/// A strict reader of Prometheus's text exposition format (version 0.0.4), for tests that scrape
/// `/metrics`: every line must be a comment, `# HELP`, `# TYPE` or a well-formed sample, a
/// family's `# TYPE` comes before its samples and its samples are together, and histograms are
/// cumulative with `+Inf` equal to `_count`. It throws at the first line that breaks a rule.
struct PrometheusText {
    struct Sample: Hashable {
        var name: String
        var labels: [String: String]
        var value: Double
    }

    struct Malformed: Error, CustomStringConvertible {
        var line: Int
        var reason: String
        var description: String { "line \(line): \(reason)" }
    }

    private(set) var samples: [Sample] = []
    /// Metric family → type (counter, gauge, histogram, summary, untyped).
    private(set) var types: [String: String] = [:]
    private(set) var help: [String: String] = [:]

    /// The value of the one sample with this name and labels.
    func value(_ name: String, _ labels: [String: String] = [:]) -> Double? {
        samples.first { $0.name == name && $0.labels == labels }?.value
    }

    init(_ text: String) throws {
        var familiesSeen: [String] = []
        var currentFamily: String?
        for (offset, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let number = offset + 1
            if line.isEmpty { continue }
            if line.hasPrefix("#") {
                let parts = line.split(separator: " ", maxSplits: 3, omittingEmptySubsequences: false)
                guard parts.count >= 3, parts[1] == "HELP" || parts[1] == "TYPE" else { continue }  // a comment
                let name = String(parts[2])
                guard Self.isMetricName(name) else { throw Malformed(line: number, reason: "bad metric name \(name)") }
                let rest = parts.count > 3 ? String(parts[3]) : ""
                if parts[1] == "TYPE" {
                    guard ["counter", "gauge", "histogram", "summary", "untyped"].contains(rest) else {
                        throw Malformed(line: number, reason: "unknown type \(rest)")
                    }
                    guard types[name] == nil else { throw Malformed(line: number, reason: "second TYPE for \(name)") }
                    guard !familiesSeen.contains(name) else {
                        throw Malformed(line: number, reason: "TYPE for \(name) after its samples")
                    }
                    types[name] = rest
                } else {
                    guard help[name] == nil else { throw Malformed(line: number, reason: "second HELP for \(name)") }
                    help[name] = rest
                }
                continue
            }
            let sample = try Self.sample(Substring(line), line: number)
            let family = family(of: sample.name)
            if family != currentFamily {
                guard !familiesSeen.contains(family) else {
                    throw Malformed(line: number, reason: "samples of \(family) are not together")
                }
                familiesSeen.append(family)
                currentFamily = family
            }
            if types[family] == "counter", sample.value < 0 || sample.value.isNaN {
                throw Malformed(line: number, reason: "counter \(sample.name) is \(sample.value)")
            }
            samples.append(sample)
        }
        try checkHistograms()
    }

    /// The family a sample belongs to: a histogram's `_bucket`, `_sum` and `_count` are its own.
    private func family(of name: String) -> String {
        for suffix in ["_bucket", "_sum", "_count"] where name.hasSuffix(suffix) {
            let base = String(name.dropLast(suffix.count))
            if types[base] == "histogram" || types[base] == "summary" { return base }
        }
        return name
    }

    private func checkHistograms() throws {
        for (name, type) in types where type == "histogram" {
            // One series per label set other than le.
            var series: [[String: String]: [(bound: Double, count: Double)]] = [:]
            for sample in samples where sample.name == name + "_bucket" {
                guard let le = sample.labels["le"], let bound = Self.number(le) else {
                    throw Malformed(line: 0, reason: "\(name)_bucket without a numeric le")
                }
                var rest = sample.labels
                rest["le"] = nil
                series[rest, default: []].append((bound, sample.value))
            }
            guard !series.isEmpty else { throw Malformed(line: 0, reason: "histogram \(name) has no buckets") }
            for (labels, buckets) in series {
                guard zip(buckets, buckets.dropFirst()).allSatisfy({ $0.bound < $1.bound && $0.count <= $1.count })
                else {
                    throw Malformed(line: 0, reason: "\(name) buckets are not increasing and cumulative")
                }
                guard let last = buckets.last, last.bound == .infinity else {
                    throw Malformed(line: 0, reason: "\(name) has no +Inf bucket")
                }
                guard value(name + "_count", labels) == last.count, value(name + "_sum", labels) != nil else {
                    throw Malformed(line: 0, reason: "\(name)_count differs from its +Inf bucket, or _sum is missing")
                }
            }
        }
    }

    static func isMetricName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first.isASCIILetter || first == "_" || first == ":" else {
            return false
        }
        return name.unicodeScalars.allSatisfy { $0.isASCIILetter || $0.isASCIIDigit || $0 == "_" || $0 == ":" }
    }

    static func number(_ text: String) -> Double? {
        switch text {
        case "+Inf", "Inf": .infinity
        case "-Inf": -.infinity
        case "NaN": .nan
        default: Double(text)
        }
    }

    /// `name{label="value",...} value [timestamp]`.
    private static func sample(_ line: Substring, line number: Int) throws -> Sample {
        var index = line.startIndex
        while index < line.endIndex, line[index] != "{", line[index] != " " { index = line.index(after: index) }
        let name = String(line[..<index])
        guard isMetricName(name) else { throw Malformed(line: number, reason: "bad metric name \(name)") }
        var labels: [String: String] = [:]
        if index < line.endIndex, line[index] == "{" {
            index = line.index(after: index)
            while index < line.endIndex, line[index] != "}" {
                let nameStart = index
                while index < line.endIndex, line[index] != "=" { index = line.index(after: index) }
                let label = String(line[nameStart..<index])
                guard let first = label.unicodeScalars.first, first.isASCIILetter || first == "_",
                    label.unicodeScalars.allSatisfy({ $0.isASCIILetter || $0.isASCIIDigit || $0 == "_" })
                else { throw Malformed(line: number, reason: "bad label name \(label)") }
                index = line.index(after: index)
                guard index < line.endIndex, line[index] == "\"" else {
                    throw Malformed(line: number, reason: "label \(label) has no quoted value")
                }
                index = line.index(after: index)
                var value = ""
                while true {
                    guard index < line.endIndex else {
                        throw Malformed(line: number, reason: "unterminated label value")
                    }
                    let character = line[index]
                    index = line.index(after: index)
                    if character == "\"" { break }
                    if character == "\\" {
                        guard index < line.endIndex else { throw Malformed(line: number, reason: "dangling escape") }
                        switch line[index] {
                        case "\\": value.append("\\")
                        case "\"": value.append("\"")
                        case "n": value.append("\n")
                        default: throw Malformed(line: number, reason: "unknown escape in label \(label)")
                        }
                        index = line.index(after: index)
                    } else {
                        value.append(character)
                    }
                }
                guard labels.updateValue(value, forKey: label) == nil else {
                    throw Malformed(line: number, reason: "label \(label) twice")
                }
                if index < line.endIndex, line[index] == "," { index = line.index(after: index) }
            }
            guard index < line.endIndex else { throw Malformed(line: number, reason: "unterminated label set") }
            index = line.index(after: index)
        }
        guard index < line.endIndex, line[index] == " " else {
            throw Malformed(line: number, reason: "no space before the value")
        }
        let fields = line[line.index(after: index)...].split(separator: " ", omittingEmptySubsequences: false)
        guard (1...2).contains(fields.count), let value = Self.number(String(fields[0])) else {
            throw Malformed(line: number, reason: "bad value in \(line)")
        }
        if fields.count == 2, Int64(fields[1]) == nil {
            throw Malformed(line: number, reason: "bad timestamp \(fields[1])")
        }
        return Sample(name: name, labels: labels, value: value)
    }
}

extension Unicode.Scalar {
    fileprivate var isASCIILetter: Bool { ("a"..."z").contains(self) || ("A"..."Z").contains(self) }
    fileprivate var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
