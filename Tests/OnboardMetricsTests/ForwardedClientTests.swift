import HTTPTypes
import Testing

@testable import OnboardMetricsHTTP

/// The client a proxy forwarded: the last address (the one the nearest proxy appended), ports and
/// brackets dropped; anything earlier is the client's to write and is ignored.
@Suite struct ForwardedClientTests {
    static let xForwardedFor = HTTPField.Name("X-Forwarded-For")
    static let forwarded = HTTPField.Name("Forwarded")

    static func fields(_ pairs: [(HTTPField.Name?, String)]) -> HTTPFields {
        var fields = HTTPFields()
        for (name, value) in pairs {
            if let name { fields.append(HTTPField(name: name, value: value)) }
        }
        return fields
    }

    @Test func theLastAddressOfXForwardedForIsTheClient() {
        #expect(ForwardedClient.address(in: Self.fields([(Self.xForwardedFor, "203.0.113.7")])) == "203.0.113.7")
        #expect(
            ForwardedClient.address(in: Self.fields([(Self.xForwardedFor, "198.51.100.1, 203.0.113.7")]))
                == "203.0.113.7")
        // Over several fields, the last of the last.
        #expect(
            ForwardedClient.address(
                in: Self.fields([(Self.xForwardedFor, "198.51.100.1"), (Self.xForwardedFor, " 203.0.113.8 ")]))
                == "203.0.113.8")
        #expect(ForwardedClient.address(in: Self.fields([(Self.xForwardedFor, "203.0.113.7:5123")])) == "203.0.113.7")
        #expect(ForwardedClient.address(in: Self.fields([(Self.xForwardedFor, "[2001:db8::1]:443")])) == "2001:db8::1")
        #expect(ForwardedClient.address(in: Self.fields([(Self.xForwardedFor, "2001:db8::1")])) == "2001:db8::1")
    }

    @Test func forwardedForIsTheClientWithoutXForwardedFor() {
        #expect(
            ForwardedClient.address(
                in: Self.fields([(Self.forwarded, "for=198.51.100.1, for=\"[2001:db8:cafe::17]:4711\";proto=https")]))
                == "2001:db8:cafe::17")
        #expect(
            ForwardedClient.address(in: Self.fields([(Self.forwarded, "proto=https;For=203.0.113.9")]))
                == "203.0.113.9")
        #expect(
            ForwardedClient.address(
                in: Self.fields([(Self.forwarded, "for=192.0.2.1"), (Self.xForwardedFor, "203.0.113.7")]))
                == "203.0.113.7")
    }

    @Test func noneIsNil() {
        #expect(ForwardedClient.address(in: HTTPFields()) == nil)
        #expect(ForwardedClient.address(in: Self.fields([(Self.xForwardedFor, " , ")])) == nil)
        #expect(ForwardedClient.address(in: Self.fields([(Self.forwarded, "proto=https")])) == nil)
    }
}
