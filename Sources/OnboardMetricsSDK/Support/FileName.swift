import Foundation

/// A name made safe to be one path component: ASCII letters and digits, and the characters in
/// `keeping`, stay; anything else (a `/`, a space, a letter outside ASCII) becomes `_`. Shared by
/// the transport's outbox folder (per app) and the sharded ingest's spool folder (per database).
package enum FileName {
    package static func safe(_ text: String, keeping: String) -> String {
        let kept = Set(keeping.unicodeScalars)
        return String(
            text.unicodeScalars.map { scalar -> Character in
                scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || kept.contains(scalar))
                    ? Character(scalar) : "_"
            })
    }
}
