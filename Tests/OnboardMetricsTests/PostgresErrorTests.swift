import Testing

@testable import OnboardMetricsPostgres
@testable import OnboardMetricsSDK

@Suite struct PostgresErrorTests {
    @Test(arguments: [("08006", true), ("57P01", true), ("40001", true), ("23505", false), ("42P01", false)])
    func transientBySQLState(sqlState: String, transient: Bool) {
        let error = PostgresError(.server, "failed", sqlState: sqlState)
        #expect(error.isTransient == transient)
    }

    @Test func descriptionCarriesServerFields() {
        let error = PostgresError(
            .server, "insert failed", sqlState: "23505", detail: "Key (id)=(1) already exists.", hint: "none")
        #expect(error.description.contains("SQLSTATE 23505"))
        #expect(error.description.contains("DETAIL: Key (id)=(1) already exists."))
    }
}
