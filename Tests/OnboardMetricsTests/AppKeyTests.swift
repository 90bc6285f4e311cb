import Testing

@testable import OnboardMetricsSDK
@testable import OnboardMetricsStore

/// App keys: our use of swift-crypto's SHA-256 for their digests, checked against the examples of
/// FIPS 180-2 (appendix B) and NIST's one-million-"a" vector (the PostgreSQL `sha256()`
/// cross-check is in ServeCommandTests); new keys.
@Suite struct AppKeyTests {
    @Test(arguments: [
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        (
            "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        ),
    ])
    func publishedVectors(message: String, digest: String) {
        #expect(AppKey.hexDigest(of: message) == digest)
    }

    @Test func oneMillionAs() {
        #expect(
            AppKey.hexDigest(of: String(repeating: "a", count: 1_000_000))
                == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    /// Messages of 55, 56 and 64 bytes need one, two and two padding blocks: the boundaries
    /// where padding goes wrong. Digests from Python's hashlib.
    @Test(arguments: [
        (55, "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318"),
        (56, "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a"),
        (64, "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb"),
    ])
    func paddingBoundaries(length: Int, digest: String) {
        #expect(AppKey.hexDigest(of: String(repeating: "a", count: length)) == digest)
    }

    @Test func newKeysAreDistinctAndURLSafe() {
        let keys = (0..<100).map { _ in AppKey.newSecret() }
        #expect(Set(keys).count == 100)
        for key in keys {
            #expect(key.hasPrefix("om_") && key.count == 46)
            #expect(key.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" })
        }
    }
}
