import Testing

@testable import OnboardMetricsPostgres
@testable import OnboardMetricsSDK

@Suite struct PostgresConfigurationTests {
    @Test(arguments: [
        ("postgresql://alice:s3cret@db.example.com:5432/app", "postgresql://alice:***@db.example.com:5432/app"),
        ("postgres://alice:s3cret@host/app?sslmode=require", "postgres://alice:***@host/app?sslmode=require"),
        (
            "postgresql://host/app?user=bob&password=s3cret&sslmode=disable",
            "postgresql://host/app?user=bob&password=***&sslmode=disable"
        ),
        ("postgresql://alice@host/app", "postgresql://alice@host/app"),
        ("host=db user=alice password=s3cret dbname=app", "host=db user=alice password=*** dbname=app"),
        ("host=db password = 's3 cr\\'et' dbname=app", "host=db password = *** dbname=app"),
        ("PASSWORD=s3cret host=db", "PASSWORD=*** host=db"),
        // Malformed strings (issue 14, defect 8): redaction holds parsed or not.
        ("POSTGRESQL://alice:s3cret@host/app", "POSTGRESQL://alice:***@host/app"),
        ("postgresql://alice:s3/cr@et@host/app", "postgresql://alice:***@host/app"),
        ("postgresql://alice:s3%zzcret@host/app", "postgresql://alice:***@host/app"),
        ("postgresql://alice:s3cret@[::1/app", "postgresql://alice:***@[::1/app"),
        ("host=db password=s3cret PW user=x", "host=db password=*** *** user=x"),
        ("host=db password=s3cret s3more", "host=db password=*** ***"),
    ])
    func redactsPasswords(input: String, expected: String) {
        #expect(PostgresConfiguration.redact(input) == expected)
        #expect(!PostgresConfiguration.redact(input).contains("s3"))
    }

    @Test func descriptionRedactsOverrides() {
        let configuration = PostgresConfiguration("host=db", overrides: ["password": "s3cret", "dbname": "x"])
        #expect(configuration.description == "host=db dbname=x password=***")
    }

    @Test func environmentPrecedence() {
        #expect(PostgresConfiguration.fromEnvironment([:]) == nil)
        #expect(PostgresConfiguration.fromEnvironment(["HOME": "/root"]) == nil)
        #expect(
            PostgresConfiguration.fromEnvironment(["DATABASE_URL": "postgresql://h/db"])?.connectionString
                == "postgresql://h/db")
        #expect(PostgresConfiguration.fromEnvironment(["PGHOST": "h"])?.connectionString == "")
        #expect(
            PostgresConfiguration.fromEnvironment(["PGHOST": "h", "DATABASE_URL": "postgresql://x/y"])?.connectionString
                == "postgresql://x/y")
    }

    @Test func failedConnectionNeverShowsThePassword() throws {
        let configuration = PostgresConfiguration(
            "postgresql://alice:topsecret@/app?host=/nonexistent-socket-folder&connect_timeout=2")
        let error = #expect(throws: PostgresError.self) { try PostgresConnection(configuration: configuration) }
        #expect(error?.code == .connectionFailed)
        #expect(error.map { !$0.description.contains("topsecret") } == true)
        #expect(error?.message.contains("alice:***@") == true)
    }

    /// libpq's own messages quote what it could not parse; none may carry a password or a piece of one.
    @Test(arguments: [
        "POSTGRESQL://alice:topsecret@/app?host=/nonexistent-socket-folder",
        "postgresql://alice:top/secretword@/app?host=/nonexistent-socket-folder",
        "postgresql://alice:top%zzsecret@/app?host=/nonexistent-socket-folder",
        "postgresql://alice:topsecret@[::1/app",
        "host=/nonexistent-socket-folder password=topsecret PWsecret user=x",
        "postgresql://alice@/app?host=/nonexistent-socket-folder&password=top%zzsecret",
    ])
    func libpqMessagesNeverShowAPassword(url: String) {
        let configuration = PostgresConfiguration(url)
        let error = #expect(throws: PostgresError.self) { try PostgresConnection(configuration: configuration) }
        let text = error?.description ?? ""
        for secret in ["topsecret", "secretword", "top%zzsecret", "zzsecret", "PWsecret"] {
            #expect(!text.contains(secret), "\(text)")
        }
    }
}
