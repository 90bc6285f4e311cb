extension Migration {
    /// The migrations the binary carries: migrations/ as it was when the binary was built
    /// (scripts/generate-bundled-files.sh; a test checks they match the folder), so an installed
    /// `funnel` needs no source tree.
    /// - Throws: ``MigrationError`` `.invalidFile` for a misnamed file (caught by the tests, not users).
    public static func bundled() throws -> [Migration] {
        try BundledMigrations.files.map { try Migration(fileName: $0.name, sql: $0.text) }
    }
}
