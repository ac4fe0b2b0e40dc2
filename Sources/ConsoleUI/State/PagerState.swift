import Foundation

/// The whole of one value (a row, a tree node, a raw artefact, an audit entry's details), shown
/// in a pager over the screen: scrolled, wrapped or not, searched with `/`, copied, saved.
struct PagerState: Equatable {
    /// What it is ("receipt #12: raw artefact").
    let title: String
    let text: String
    /// The text's lines as it holds them (wrapping happens when drawn).
    let lines: [String]
    var wrap = true
    /// The first shown row (of wrapped rows when wrapping, else of lines).
    var scroll = 0
    /// The text looked for with `/` (case-insensitive), and the line of the current match.
    var search = ""
    var matchLine: Int?
    /// A one-line prompt inside the pager: the search, or the file to save to.
    var prompt: PagerPrompt?
    /// A value shown once and never kept (an offer signature): it can be copied (y), never saved
    /// to a file, and it is gone when the pager closes.
    var shownOnce = false

    /// The most a pager holds: longer values are cut, saying so (a raw artefact is far below it).
    static let maxBytes = 4 * 1024 * 1024

    init(title: String, text: String) {
        self.title = title
        let kept = text.utf8.count > Self.maxBytes ? String(decoding: Array(text.utf8.prefix(Self.maxBytes)), as: UTF8.self) : text
        self.text = kept
        lines = kept.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    /// The lines after `line` (wrapping around) that hold `needle`, first one first.
    func nextMatch(after line: Int, _ needle: String) -> Int? {
        guard !needle.isEmpty, !lines.isEmpty else { return nil }
        for step in 1...lines.count {
            let index = (line + step) % lines.count
            if lines[index].range(of: needle, options: .caseInsensitive) != nil { return index }
        }
        return nil
    }
}

/// A prompt inside the pager.
enum PagerPrompt: Equatable {
    case search(TextField)
    case save(TextField)
}
