import Foundation

extension String {
    /// Whether the text holds a NUL byte (U+0000), which PostgreSQL text cannot store. A loop over
    /// the contiguous UTF-8 bytes: `utf8.contains(0)` steps through the view's iterator (2 % of the
    /// recorder's CPU, profiled), and `memchr` costs more than it saves on names this short.
    package var containsNUL: Bool {
        var text = self
        return text.withUTF8 { $0.contains(0) }
    }
}
