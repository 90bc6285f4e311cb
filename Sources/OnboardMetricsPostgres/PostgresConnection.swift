import CPostgres
import Foundation

/// One connection to PostgreSQL over libpq.
///
/// The type is deliberately not `Sendable`: a connection has one owner and is never used by two
/// threads at once. Its calls block, so async code runs them through ``BlockingIO/run(_:)``,
/// which keeps them off Swift's cooperative thread pool. The libpq connection is closed by
/// ``close()`` or, at the latest, when the value is released.
public final class PostgresConnection {
    /// The settings this connection was opened with (print it: passwords are redacted).
    public let configuration: PostgresConfiguration
    private var handle: OpaquePointer?

    /// Opens a connection.
    /// - Parameter configuration: where to connect.
    /// - Throws: `PostgresError` `.connectionFailed` with libpq's reason.
    public init(configuration: PostgresConfiguration) throws {
        self.configuration = configuration
        var parameters: [(String, String)] = [("dbname", configuration.connectionString)]
        if configuration.overrides["client_encoding"] == nil { parameters.append(("client_encoding", "UTF8")) }
        if configuration.overrides["fallback_application_name"] == nil {
            parameters.append(("fallback_application_name", "onboardmetrics"))
        }
        parameters += configuration.overrides.sorted { $0.key < $1.key }
        let connection = withCStringArray(parameters.map(\.0)) { keywords in
            withCStringArray(parameters.map(\.1)) { values in
                PQconnectdbParams(keywords, values, 1)
            }
        }
        guard let connection else {
            throw PostgresError(.connectionFailed, "could not connect to \(configuration): libpq is out of memory")
        }
        guard PQstatus(connection) == CONNECTION_OK else {
            // libpq may quote the connection string, or a piece of a password it could not parse.
            let reason = configuration.scrub(Self.libpqMessage(connection))
            PQfinish(connection)
            throw PostgresError(.connectionFailed, "could not connect to \(configuration): \(reason)")
        }
        // Server notices ("relation already exists, skipping") are not errors; keep stderr for ours.
        PQsetNoticeProcessor(connection, { _, _ in }, nil)
        handle = connection
    }

    deinit { close() }

    /// Closes the connection; later calls fail with `.connectionClosed`. Closing twice is harmless.
    public func close() {
        if let handle { PQfinish(handle) }
        handle = nil
    }

    /// Whether the connection is open and healthy as far as libpq knows.
    public var isOpen: Bool {
        guard let handle else { return false }
        return PQstatus(handle) == CONNECTION_OK
    }

    /// Whether a transaction is open on the connection (in progress or failed and awaiting
    /// `ROLLBACK`), as libpq last heard from the server.
    package var isInTransaction: Bool {
        guard let handle else { return false }
        let status = PQtransactionStatus(handle)
        return status == PQTRANS_INTRANS || status == PQTRANS_INERROR || status == PQTRANS_ACTIVE
    }

    /// The server's process id for this connection (used to cancel or terminate it).
    public var backendPID: Int32 {
        handle.map { PQbackendPID($0) } ?? 0
    }

    /// Runs one statement with parameters and returns its rows, decoded.
    /// - Parameters:
    ///   - sql: one SQL statement with `$1`, `$2`, ... placeholders.
    ///   - parameters: the values for the placeholders, sent in binary, never spliced into the text.
    /// - Throws: `PostgresError`: `.server` with SQLSTATE, `.connectionLost`, or `.invalidValue`.
    @discardableResult
    public func query(_ sql: String, _ parameters: [PostgresValue] = []) throws -> PostgresRows {
        let result = try execute(sql, parameters)
        defer { PQclear(result) }
        return try PostgresRows(result: result)
    }

    /// Runs a script of several statements with no parameters (migrations); returns when all have run.
    /// - Throws: `PostgresError` for the first statement that fails.
    public func executeScript(_ sql: String) throws {
        let handle = try openHandle()
        let result = PQexec(handle, sql)
        defer { PQclear(result) }
        try check(result, sql: sql)
    }

    /// Runs `body` inside a transaction: commits when it returns, rolls back when it throws.
    /// - Throws: what `body` throws, or `PostgresError` from BEGIN/COMMIT.
    public func transaction<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        try transactionMayStayOpen { (value: try body($0), leaveOpen: false) }
    }

    /// ``transaction(_:)``, but left open — neither committed nor rolled back — when `body` says
    /// so: a read-only snapshot handed to a later read on this connection, which ends it.
    package func transactionMayStayOpen<T>(
        _ body: (PostgresConnection) throws -> (value: T, leaveOpen: Bool)
    ) throws -> T {
        try query("BEGIN")
        let value: T
        do {
            let result = try body(self)
            guard !result.leaveOpen else { return result.value }
            value = result.value
        } catch {
            if isOpen { _ = try? query("ROLLBACK") }
            throw error
        }
        let commit = try execute("COMMIT", [])
        defer { PQclear(commit) }
        // COMMIT of a transaction that failed inside reports ROLLBACK rather than an error.
        if String(cString: PQcmdStatus(commit)) == "ROLLBACK" {
            throw PostgresError(.server, "transaction was rolled back by the server instead of committed")
        }
        return value
    }

    // MARK: - Internals shared with COPY

    package func openHandle() throws -> OpaquePointer {
        guard let handle else {
            throw PostgresError(.connectionClosed, "the connection was closed and cannot be used again")
        }
        return handle
    }

    /// Executes with binary parameters and binary results; the caller clears the result.
    package func execute(_ sql: String, _ parameters: [PostgresValue]) throws -> OpaquePointer {
        let handle = try openHandle()
        var payload: [UInt8] = []
        var offsets: [Int] = []
        var lengths: [Int32] = []
        var types: [Oid] = []
        for value in parameters {
            let start = payload.count
            let present = try value.appendBinary(to: &payload)
            offsets.append(present ? start : -1)
            lengths.append(Int32(payload.count - start))
            types.append(value.typeOID)
        }
        let formats = [Int32](repeating: 1, count: parameters.count)
        let result = payload.withUnsafeBufferPointer { bytes -> OpaquePointer? in
            // An empty payload may have no base address; give present-but-empty values a valid pointer.
            let empty: StaticString = ""
            let base = bytes.baseAddress.map { UnsafeRawPointer($0) } ?? UnsafeRawPointer(empty.utf8Start)
            let pointers: [UnsafePointer<CChar>?] = offsets.map { offset in
                offset < 0 ? nil : (base + offset).assumingMemoryBound(to: CChar.self)
            }
            return PQexecParams(handle, sql, Int32(parameters.count), types, pointers, lengths, formats, 1)
        }
        do {
            try check(result, sql: sql)
        } catch {
            PQclear(result)
            throw error
        }
        guard let result else { throw PostgresError(.protocolViolation, "libpq returned no result") }
        return result
    }

    /// Throws the error a result carries, as a `PostgresError` with the server's fields.
    package func check(_ result: OpaquePointer?, sql: String?) throws {
        let status = result.map { PQresultStatus($0) } ?? PGRES_FATAL_ERROR
        switch status {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_COPY_IN, PGRES_COPY_OUT, PGRES_EMPTY_QUERY:
            return
        default:
            throw error(from: result)
        }
    }

    /// Builds an error from a failed result (or the connection when there is none), telling a lost
    /// connection apart from an error the server reported.
    package func error(from result: OpaquePointer?) -> PostgresError {
        func field(_ code: Character) -> String? {
            guard let result, let ascii = code.asciiValue, let value = PQresultErrorField(result, Int32(ascii)) else {
                return nil
            }
            return String(cString: value)
        }
        let sqlState = field("C")
        let serverMessage = field("M")
        let connectionBroken = handle.map { PQstatus($0) == CONNECTION_BAD } ?? true
        if connectionBroken
            && (sqlState == nil || sqlState?.hasPrefix("57P") == true || sqlState?.hasPrefix("08") == true)
        {
            let reason = serverMessage ?? handle.map { Self.libpqMessage($0) } ?? "connection closed"
            return PostgresError(.connectionLost, "connection to the server was lost: \(reason)", sqlState: sqlState)
        }
        guard let serverMessage else {
            let reason = handle.map { Self.libpqMessage($0) } ?? "unknown error"
            return PostgresError(.protocolViolation, reason)
        }
        var message = serverMessage
        if let position = field("P").flatMap(Int.init) { message += " (at character \(position))" }
        return PostgresError(
            .server, message, sqlState: sqlState, serverMessage: serverMessage, detail: field("D"), hint: field("H"))
    }

    package static func libpqMessage(_ connection: OpaquePointer) -> String {
        String(cString: PQerrorMessage(connection)).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// Calls `body` with a NULL-terminated array of C strings that live for the call.
private func withCStringArray<R>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> R) -> R {
    let duplicates = strings.map { strdup($0) }
    defer { duplicates.forEach { free($0) } }
    let pointers: [UnsafePointer<CChar>?] = duplicates.map { $0.map { UnsafePointer($0) } } + [nil]
    return pointers.withUnsafeBufferPointer { buffer in
        // swift-format-ignore: NeverForceUnwrap
        body(buffer.baseAddress!)  // a non-empty array always has storage
    }
}
