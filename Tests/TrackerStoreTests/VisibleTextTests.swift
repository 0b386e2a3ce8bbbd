import Foundation
import TestSupport
import Testing

@testable import TrackerStore

/// Text from the store shown to people: controls as visible escapes (``VisibleText``), and as `\u` escapes in
/// JSON; names with control characters refused at the door.
@Suite struct VisibleTextTests {
    @Test(arguments: [
        ("x \u{1B}]0;PWNED\u{7}", "x \\x1b]0;PWNED\\x07"),
        ("\u{1B}[2J", "\\x1b[2J"),
        ("red \u{9B}31m", "red \\u009b31m"),
        ("harmless\rEVIL", "harmless\\rEVIL"),
        ("del\u{7F}", "del\\x7f"),
        ("nul\u{0}", "nul\\x00"),
        ("invoice \u{202E}gpj.exe\u{202C}", "invoice \\u202egpj.exe\\u202c"),
        ("a \u{2066}b\u{2069}", "a \\u2066b\\u2069"),
        ("two\nlines\tand a tab", "two\\nlines\\tand a tab"),
        // What prints stays as it is: accents, CJK, emoji, combining marks, the Arabic number sign.
        ("Résumé 東京 👍 e\u{301} \u{600}<", "Résumé 東京 👍 e\u{301} \u{600}<"),
    ])
    func controlsAreShownNotSent(text: String, shown: String) {
        #expect(VisibleText.escaped(text) == shown)
        #expect(VisibleText.containsControl(text) == (text != shown))
    }

    @Test func lineBreaksAreKeptWhereABlockOfTextIsShown() {
        #expect(VisibleText.escaped("one\ntwo\tthree\r\u{1B}", keepingLineBreaks: true) == "one\ntwo\tthree\\r\\x1b")
        #expect(!VisibleText.containsControl("one\ntwo\t", keepingLineBreaks: true))
    }

    /// JSON carries every control as an escape a JSON reader turns back into the same character.
    @Test func jsonWritesControlsAsEscapesThatReadBack() throws {
        for text in ["x \u{1B}]0;PWNED\u{7}", "red \u{9B}31m", "\u{202E}txt", "a\u{2028}b", "\u{7F}", "plain"] {
            let quoted = JSONLines.quote(text)
            #expect(!VisibleText.containsControl(quoted), "\(quoted)")
            let back = try JSONSerialization.jsonObject(with: Data(quoted.utf8), options: [.fragmentsAllowed])
            #expect(back as? String == text)
        }
        #expect(JSONLines.quote("red \u{9B}31m") == "\"red \\u009b31m\"")
    }

    /// The byte-level quoting escapes exactly the scalars the rules name, wherever they stand (first, last, next to
    /// multi-byte letters that share their lead bytes: Â is C3 82, ‧ is E2 80 A7, at any byte of a word of eight),
    /// and copies everything else.
    @Test func jsonQuotingEscapesExactlyTheControls() throws {
        func reference(_ text: String) -> String {
            var out = "\""
            for scalar in text.unicodeScalars {
                switch scalar {
                case "\"": out += "\\\""
                case "\\": out += "\\\\"
                case "\n": out += "\\n"
                case "\r": out += "\\r"
                case "\t": out += "\\t"
                case _ where VisibleText.isControl(scalar) || scalar.value == 0x2028 || scalar.value == 0x2029:
                    out += String(format: "\\u%04x", scalar.value)
                default: out.unicodeScalars.append(scalar)
                }
            }
            return out + "\""
        }
        let scalars =
            (0...0xA0).compactMap(Unicode.Scalar.init) + (0x2020...0x2070).compactMap(Unicode.Scalar.init)
            + ["é", "Â", "日", "😀", "\u{C2}", "\u{E2}"]
        for scalar in scalars {
            for text in [String(scalar), "a\(scalar)b", "\(scalar)é\(scalar)", "日\(scalar)"] {
                #expect(JSONLines.quote(text) == reference(text), "U+\(String(scalar.value, radix: 16))")
            }
            // At each place of an eight-byte word in a run of plain text, which is read eight bytes at a time.
            for offset in 0...16 {
                let text = String(repeating: "a", count: offset) + String(scalar) + String(repeating: "z", count: 17)
                #expect(JSONLines.quote(text) == reference(text), "U+\(String(scalar.value, radix: 16)) at \(offset)")
            }
        }
    }

    /// An author is shown on one line everywhere: one with a control character is refused, by the CLI's writes and
    /// by imports alike, and nothing is stored.
    @Test func anAuthorWithAControlCharacterIsRefused() throws {
        let directory = TemporaryDirectory("visible")
        let store = try TrackerStore.create(at: directory.file("store.sqlite"))
        let project = try store.addProject(title: "Garden")
        for author in ["Eve\u{1B}[2J", "Eve\nMallory", "\u{202E}eve", "Eve\u{9B}"] {
            #expect {
                try store.addMessage(on: .project(id: project.id), author: author, text: "hello")
            } throws: { error in
                (error as? StoreError)?.message.contains("the author's name holds the control character") == true
            }
        }
        // Spaces around a name are trimmed, not refused.
        #expect(try store.addMessage(on: .project(id: project.id), author: "  Ada \n", text: "hello").author == "Ada")
        let line = #"{"kind":"message","project":"\#(project.id)","author":"Eve\u001b]0;x\u0007","text":"hi"}"#
        #expect(throws: StoreError.self) { try store.importJSONLines(Data(line.utf8)) }
        #expect(try store.read { try $0.messageCount() } == 1)
    }
}
