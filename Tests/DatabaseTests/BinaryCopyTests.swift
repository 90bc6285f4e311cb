import Foundation
import Testing

@testable import OnboardMetricsPostgres
@testable import OnboardMetricsSDK

@Suite struct BinaryCopyTests {
    /// The row `index` of the round-trip table, computed so that reading it back can be checked.
    struct Row: Equatable {
        var id: UUID
        var name: String?
        var small: Int16
        var count: Int32
        var big: Int64
        var ratio: Double
        var flag: Bool
        var at: Int64  // microseconds since 2000-01-01
        var props: String

        init(_ index: Int) {
            var bytes = [UInt8](repeating: 0, count: 16)
            withUnsafeBytes(of: UInt64(index).bigEndian) { bytes.replaceSubrange(8..<16, with: $0) }
            bytes[0] = 0x01
            id = bytes.withUnsafeBytes { UUID(uuid: $0.loadUnaligned(as: uuid_t.self)) }
            name = index % 7 == 0 ? nil : "step-\(index)-ü東"
            small = Int16(truncatingIfNeeded: index)
            count = Int32(index)
            big = Int64(index) * 1_000_000_007
            ratio = Double(index) / 3
            flag = index % 2 == 0
            at = 780_000_000_000_000 + Int64(index) * 1_000
            props = #"{"i": \#(index)}"#
        }
    }

    @Test func roundTripOf100000Rows() async throws {
        let configuration = try await TestDatabase.fresh("binary_copy")
        let rowCount = 100_000
        let (written, read, mismatches) = try await TestDatabase.withConnection(configuration) { connection in
            try connection.query(
                """
                CREATE TABLE copy_rows (id uuid, name text, small int2, count int4, big int8, ratio float8,
                                        flag bool, at timestamptz, props jsonb)
                """)
            let written = try connection.copyIn(
                "COPY copy_rows FROM STDIN (FORMAT binary)"
            ) { writer in
                for index in 0..<rowCount {
                    let row = Row(index)
                    writer.beginRow(fieldCount: 9)
                    writer.write(uuid: row.id)
                    try writer.write(text: row.name)
                    writer.write(int16: row.small)
                    writer.write(int32: row.count)
                    writer.write(int64: row.big)
                    writer.write(float64: row.ratio)
                    writer.write(bool: row.flag)
                    writer.write(timestampMicroseconds: row.at)
                    try writer.write(jsonb: row.props)
                    try writer.endRow()
                }
            }
            var mismatches = 0
            var expectedIndex = 0
            let read = try connection.copyOut("COPY (SELECT * FROM copy_rows ORDER BY count) TO STDOUT (FORMAT binary)")
            { row in
                var decoded = Row(expectedIndex)
                decoded.id = try row.uuid(0) ?? UUID()
                decoded.name = row.text(1)
                decoded.small = try row.int16(2) ?? -1
                decoded.count = try row.int32(3) ?? -1
                decoded.big = try row.int64(4) ?? -1
                decoded.ratio = try row.float64(5) ?? -1
                decoded.flag = try row.bool(6) ?? !decoded.flag
                decoded.at = try row.timestampMicroseconds(7) ?? -1
                decoded.props = try row.jsonb(8) ?? ""
                if decoded != Row(expectedIndex) { mismatches += 1 }
                expectedIndex += 1
            }
            return (written, read, mismatches)
        }
        #expect(written == rowCount)
        #expect(read == rowCount)
        #expect(mismatches == 0)
    }

    @Test func copyInAbortedByTheCallerStoresNothing() async throws {
        let configuration = try await TestDatabase.fresh("copy_abort")
        struct Deliberate: Error {}
        let stored = try await TestDatabase.withConnection(configuration) { connection in
            try connection.query("CREATE TABLE t (id int4)")
            do {
                try connection.copyIn("COPY t FROM STDIN (FORMAT binary)") { writer in
                    for index in 0..<50_000 {
                        writer.beginRow(fieldCount: 1)
                        writer.write(int32: Int32(index))
                        try writer.endRow()
                    }
                    throw Deliberate()
                }
            } catch is Deliberate {}
            // The connection is still usable.
            return try connection.query("SELECT count(*) AS n FROM t").first?["n"].int
        }
        #expect(stored == 0)
    }

    @Test func copyInUniqueViolationReportsSQLState() async throws {
        let configuration = try await TestDatabase.fresh("copy_unique")
        let error = await #expect(throws: PostgresError.self) {
            try await TestDatabase.withConnection(configuration) { connection in
                try connection.query("CREATE TABLE t (id int4 PRIMARY KEY)")
                try connection.copyIn("COPY t FROM STDIN (FORMAT binary)") { writer in
                    for id in [1, 2, 1] {
                        writer.beginRow(fieldCount: 1)
                        writer.write(int32: Int32(id))
                        try writer.endRow()
                    }
                }
            }
        }
        #expect(error?.sqlState == "23505")
    }

    @Test func copyOutStopsCleanlyWhenTheCallerThrows() async throws {
        struct Enough: Error {}
        let configuration = try TestDatabase.admin()
        let after = try await TestDatabase.withConnection(configuration) { connection -> Int? in
            var seen = 0
            do {
                try connection.copyOut("COPY (SELECT g FROM generate_series(1, 10000) g) TO STDOUT (FORMAT binary)") {
                    _ in
                    seen += 1
                    if seen == 10 { throw Enough() }
                }
            } catch is Enough {}
            return try connection.query("SELECT 7 AS n").first?["n"].int
        }
        #expect(after == 7)
    }

    @Test func wrongFieldCountIsRefused() async throws {
        let configuration = try await TestDatabase.fresh("copy_fields")
        let error = await #expect(throws: PostgresError.self) {
            try await TestDatabase.withConnection(configuration) { connection in
                try connection.query("CREATE TABLE t (a int4, b int4)")
                try connection.copyIn("COPY t FROM STDIN (FORMAT binary)") { writer in
                    writer.beginRow(fieldCount: 2)
                    writer.write(int32: 1)
                    try writer.endRow()
                }
            }
        }
        #expect(error?.code == .invalidValue)
    }
}
