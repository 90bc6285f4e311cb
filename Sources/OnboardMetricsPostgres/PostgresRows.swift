import CPostgres

/// The rows a query returned, decoded into ``PostgresValue``s.
public struct PostgresRows: Sendable, RandomAccessCollection {
    /// Column names, in order.
    public let columns: [String]
    /// The rows.
    public let rows: [PostgresRow]
    /// Rows inserted, updated or deleted, for commands that report it.
    public let affectedRows: Int

    public var startIndex: Int { rows.startIndex }
    public var endIndex: Int { rows.endIndex }
    public subscript(position: Int) -> PostgresRow { rows[position] }

    package init(result: OpaquePointer) throws {
        let columnCount = Int(PQnfields(result))
        let rowCount = Int(PQntuples(result))
        var columns: [String] = []
        var types: [UInt32] = []
        for column in 0..<columnCount {
            columns.append(String(cString: PQfname(result, Int32(column))))
            types.append(PQftype(result, Int32(column)))
        }
        var rows: [PostgresRow] = []
        rows.reserveCapacity(rowCount)
        for row in 0..<rowCount {
            var values: [PostgresValue] = []
            values.reserveCapacity(columnCount)
            for column in 0..<columnCount {
                if PQgetisnull(result, Int32(row), Int32(column)) != 0 {
                    values.append(.null)
                    continue
                }
                let length = Int(PQgetlength(result, Int32(row), Int32(column)))
                let bytes = UnsafeRawBufferPointer(start: PQgetvalue(result, Int32(row), Int32(column)), count: length)
                values.append(try PostgresValue.decodeBinary(bytes, typeOID: types[column], column: columns[column]))
            }
            rows.append(PostgresRow(columns: columns, values: values))
        }
        self.columns = columns
        self.rows = rows
        self.affectedRows = Int(String(cString: PQcmdTuples(result))) ?? 0
    }
}

/// One row of a query result.
public struct PostgresRow: Sendable {
    /// Column names, in order.
    public let columns: [String]
    /// Values, in column order.
    public let values: [PostgresValue]

    /// The value at a column position.
    public subscript(index: Int) -> PostgresValue { values[index] }

    /// The value of the named column, or `.null` when no column has that name.
    public subscript(name: String) -> PostgresValue {
        guard let index = columns.firstIndex(of: name) else { return .null }
        return values[index]
    }
}
