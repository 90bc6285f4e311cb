import CPostgres

extension PostgresConnection {
    /// Bulk-writes rows with `COPY ... FROM STDIN (FORMAT binary)`, streamed in chunks.
    ///
    /// If `body` throws, the COPY is aborted and nothing of it is stored.
    /// - Parameters:
    ///   - sql: the COPY statement, e.g. `COPY events (event_id, seq) FROM STDIN (FORMAT binary)`.
    ///   - body: writes the rows.
    /// - Returns: the number of rows the server stored.
    /// - Throws: what `body` throws, or `PostgresError` (e.g. SQLSTATE 23505 for a duplicate key).
    @discardableResult
    public func copyIn(_ sql: String, _ body: (inout BinaryCopyWriter) throws -> Void) throws -> Int {
        try copyIn(sql, begin: false, commit: false, body)
    }

    /// ``copyIn(_:_:)`` as the start or the end of a transaction of its own, in the same round trip:
    /// `BEGIN` and `COMMIT` travel with the COPY as one simple query, and the server runs the
    /// `COMMIT` once the rows have arrived. A transaction of one COPY takes two round trips (the
    /// COPY's start and end) instead of four.
    ///
    /// With `begin` or `commit`, any failure rolls the transaction back before the error is thrown;
    /// with neither, this is ``copyIn(_:_:)`` inside the caller's transaction, if any.
    /// - Parameters:
    ///   - begin: starts the transaction (`BEGIN`) before the COPY.
    ///   - commit: commits it (`COMMIT`) after the COPY; without it the transaction stays open for
    ///     the caller's next statement, which must end it (e.g. another COPY with `commit`).
    /// - Returns: the number of rows the server stored.
    /// - Throws: what `body` throws, or `PostgresError` (SQLSTATE 23505 for a duplicate key).
    @discardableResult
    package func copyIn(
        _ sql: String, begin: Bool, commit: Bool, _ body: (inout BinaryCopyWriter) throws -> Void
    ) throws -> Int {
        let statements = (begin ? "BEGIN; " : "") + sql + (commit ? "; COMMIT" : "")
        do {
            let (rows, lastStatus) = try streamCopy(statements, body)
            // COMMIT of a transaction that failed inside reports ROLLBACK rather than an error.
            if commit, lastStatus != "COMMIT" {
                throw PostgresError(.server, "transaction was rolled back by the server instead of committed")
            }
            return rows
        } catch {
            if begin || commit, isOpen, isInTransaction { _ = try? query("ROLLBACK") }
            throw error
        }
    }

    /// Sends `statements` (a COPY FROM STDIN, possibly between other statements of one simple
    /// query), streams `body`'s rows, and reads every result.
    /// - Returns: the rows the COPY stored and the command status of the last statement.
    private func streamCopy(
        _ statements: String, _ body: (inout BinaryCopyWriter) throws -> Void
    ) throws -> (rows: Int, lastStatus: String) {
        let handle = try openHandle()
        // PQexec returns at the COPY's CopyInResponse, after the results of any statement before it.
        let start = PQexec(handle, statements)
        defer { PQclear(start) }
        try check(start, sql: statements)
        guard PQresultStatus(start) == PGRES_COPY_IN else {
            throw PostgresError(.protocolViolation, "statement did not start a COPY FROM STDIN: \(statements)")
        }
        var writer = BinaryCopyWriter { [unowned self] chunk in
            let sent = chunk.withUnsafeBufferPointer { bytes in
                bytes.withMemoryRebound(to: CChar.self) { PQputCopyData(handle, $0.baseAddress, Int32($0.count)) }
            }
            if sent != 1 { throw self.error(from: nil) }
        }
        do {
            try body(&writer)
            try writer.finish()
        } catch {
            _ = PQputCopyEnd(handle, "aborted by client")
            drainResults(handle)
            throw error
        }
        guard PQputCopyEnd(handle, nil) == 1 else { throw error(from: nil) }
        return try finishCommand(handle)
    }

    /// Streams the rows of `COPY (...) TO STDOUT (FORMAT binary)` to `body`, one at a time,
    /// without holding more than one server message in memory.
    /// - Parameters:
    ///   - sql: the COPY statement.
    ///   - body: called for each row; the row is valid only during the call.
    /// - Returns: the number of rows read.
    /// - Throws: what `body` throws (the rest of the stream is then discarded), or `PostgresError`.
    @discardableResult
    public func copyOut(_ sql: String, _ body: (BinaryCopyRow) throws -> Void) throws -> Int {
        let handle = try openHandle()
        let start = PQexec(handle, sql)
        defer { PQclear(start) }
        try check(start, sql: sql)
        guard PQresultStatus(start) == PGRES_COPY_OUT else {
            throw PostgresError(.protocolViolation, "statement did not start a COPY TO STDOUT: \(sql)")
        }
        var parser = BinaryCopyParser()
        var bodyError: Error?
        while true {
            var chunk: UnsafeMutablePointer<CChar>?
            let length = PQgetCopyData(handle, &chunk, 0)
            if length == -1 { break }
            guard length >= 0, let chunk else {
                let failure = error(from: nil)
                drainResults(handle)
                throw failure
            }
            defer { PQfreemem(chunk) }
            // After a failure in `body`, keep reading to the end so the connection stays usable.
            guard bodyError == nil else { continue }
            do {
                try parser.consume(UnsafeRawBufferPointer(start: chunk, count: Int(length)), body)
            } catch {
                bodyError = error
            }
        }
        let commandError: Error?
        do {
            _ = try finishCommand(handle)
            commandError = nil
        } catch {
            commandError = error
        }
        if let bodyError { throw bodyError }
        if let commandError { throw commandError }
        try parser.finish()
        return parser.rowCount
    }

    /// Reads every result that ends a command: the row count is the first command's (`COPY n`),
    /// the status the last one's (a `COMMIT` sent after the COPY).
    private func finishCommand(_ handle: OpaquePointer) throws -> (rows: Int, lastStatus: String) {
        var firstError: PostgresError?
        var rows: Int?
        var lastStatus = ""
        while let result = PQgetResult(handle) {
            defer { PQclear(result) }
            if PQresultStatus(result) == PGRES_COMMAND_OK {
                lastStatus = String(cString: PQcmdStatus(result))
                if rows == nil { rows = Int(String(cString: PQcmdTuples(result))) }
            } else if firstError == nil {
                firstError = error(from: result)
            }
        }
        if let firstError { throw firstError }
        if PQstatus(handle) == CONNECTION_BAD { throw error(from: nil) }
        return (rows ?? 0, lastStatus)
    }

    private func drainResults(_ handle: OpaquePointer) {
        while let result = PQgetResult(handle) { PQclear(result) }
    }
}
