import Foundation
import ReceiptCore

/// Where a whole value goes besides the screen: the terminal's clipboard (OSC 52, which is how
/// copying works over SSH and in tmux) or a new file.
enum ValueOutput {
    /// The most sent to the clipboard: terminals drop longer OSC 52 sequences.
    static let clipboardLimit = 100_000

    static func copy(_ text: String, label: String, clipboard: (@Sendable (String) -> Bool)?) -> StatusMessage {
        guard let clipboard else {
            return StatusMessage(text: "no terminal clipboard here: use v, then s to save \(label) to a file", kind: .error)
        }
        let bytes = text.utf8.count
        guard bytes <= clipboardLimit else {
            return StatusMessage(text: "\(label) is \(Plural.of(bytes, "byte")), more than a terminal's clipboard takes (\(clipboardLimit)): use v, then s to save it to a file",
                                 kind: .error)
        }
        guard clipboard(text) else { return StatusMessage(text: "could not write to the terminal: nothing copied", kind: .error) }
        return StatusMessage(text: "copied \(label) (\(Plural.of(bytes, "byte"))) to the terminal's clipboard (OSC 52; in tmux: set -g set-clipboard on)",
                             kind: .success)
    }

    /// Writes a new file; never replaces one.
    static func write(_ text: String, to path: String, label: String) -> StatusMessage {
        let full = (path as NSString).expandingTildeInPath
        let descriptor = open(full, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard descriptor >= 0 else {
            let reason = errno == EEXIST ? "exists already" : String(cString: strerror(errno))
            return StatusMessage(text: "not saved, \(path): \(reason) (nothing was replaced; give another name)", kind: .error)
        }
        defer { close(descriptor) }
        let bytes = Array(text.utf8)
        var written = 0
        while written < bytes.count {
            let n = bytes[written...].withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            guard n > 0 else {
                let reason = String(cString: strerror(errno))
                unlink(full)  // nothing half-written is left behind
                return StatusMessage(text: "not saved, \(path): \(reason) (nothing left behind)", kind: .error)
            }
            written += n
        }
        return StatusMessage(text: "saved \(label) to \(full) (\(Plural.of(bytes.count, "byte")))", kind: .success)
    }
}
