import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes to stdout and stderr. One place, so that every command prints the same way.
enum Output {
    static func line(_ text: String) {
        print(text)
    }

    /// A line on stderr (warnings, notes, errors).
    static func note(_ text: String) {
        flush()
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    static func flush() {
        fflush(nil)
    }
}
