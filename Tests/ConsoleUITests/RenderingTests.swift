@testable import ConsoleUI
import Testing

@Suite("Display width, the virtual screen, themes and key sequences")
struct RenderingTests {
    @Test func widthsFollowWcwidth() {
        #expect(DisplayWidth.of("abc") == 3)
        #expect(DisplayWidth.of("王小明") == 6)
        #expect(DisplayWidth.of("金币礼包 ×1") == 11)
        #expect(DisplayWidth.of("テスト") == 6)
        #expect(DisplayWidth.of("김민준") == 6)
        #expect(DisplayWidth.of("ＡＢ") == 4, "fullwidth forms")
        #expect(DisplayWidth.of("e\u{301}") == 1, "a combining accent adds nothing")
        #expect(DisplayWidth.of("Ἀθηνᾶ") == 5)
        #expect(DisplayWidth.of("😀") == 2)
        #expect(DisplayWidth.of("✓✗⚠●◆▸▾─│█") == 10, "the console's own glyphs are narrow")
        #expect(DisplayWidth.of("a\u{200B}b") == 3, "a zero-width space reaches the screen as U+FFFD, one column")
    }

    @Test func controlCharactersAreReplaced() {
        #expect(DisplayWidth.sanitized("a\u{1B}[2Jb\tc\n") == "a\u{FFFD}[2Jb\u{FFFD}c\u{FFFD}")
        let screen = VirtualScreen(size: ScreenSize(rows: 1, columns: 10))
        screen.put("x\u{1B}y", row: 0, column: 0)
        #expect(screen.lines == ["x\u{FFFD}y"])
    }

    @Test func bidiAndZeroWidthCharactersNeverReachTheScreen() {
        // A family emoji joined with U+200D, a right-to-left override, a zero-width space: each
        // is replaced, so what the terminal draws takes the columns counted here.
        let family = "👨\u{200D}👩\u{200D}👧"
        #expect(DisplayWidth.sanitized(family) == "👨\u{FFFD}👩\u{FFFD}👧")
        #expect(DisplayWidth.sanitized("cust\u{202E}0100") == "cust\u{FFFD}0100")
        #expect(DisplayWidth.sanitized("a\u{200B}b\u{2066}c\u{FEFF}") == "a\u{FFFD}b\u{FFFD}c\u{FFFD}")
        // Variation selectors and combining marks are not touched.
        #expect(DisplayWidth.sanitized("❤\u{FE0F} e\u{301}") == "❤\u{FE0F} e\u{301}")
        let screen = VirtualScreen(size: ScreenSize(rows: 2, columns: 20))
        for (row, name) in ["\(family) kid", "x\u{200B}y\u{202E}z"].enumerated() {
            screen.put(Columns.layout([.init(name, .plain, nil), .init("9", .plain, 2, right: true)], total: 20), row: row, column: 0, width: 20)
            #expect(!screen.text(row: row).unicodeScalars.contains { [0x200D, 0x200B, 0x202E].contains($0.value) })
            #expect(DisplayWidth.of(screen.text(row: row)) == 20)
            #expect(screen.text(row: row).hasSuffix(" 9"), "the count column stays put: \(screen.text(row: row))")
        }
    }

    @Test(arguments: 0...12) func truncationNeverExceedsTheWidth(width: Int) {
        for text in ["王小明的订阅 pro.monthly", "abc王def", "金币礼包", "plain ascii text"] {
            #expect(DisplayWidth.of(DisplayWidth.truncate(text, to: width)) <= width)
            #expect(DisplayWidth.of(DisplayWidth.fit(text, to: width)) == width)
            #expect(Columns.fit([Span(text)], to: width).width == max(0, width))
        }
    }

    @Test func halfAWideCharacterNeverShows() {
        let screen = VirtualScreen(size: ScreenSize(rows: 2, columns: 5))
        #expect(screen.put("王小明", row: 0, column: 0) == 5, "two wide characters and a blank where the third would be cut")
        #expect(screen.lines[0] == "王小")
        #expect(screen.cell(row: 0, column: 4).character == " ")
        screen.put("ab王", row: 1, column: 0, style: .plain, maxWidth: 3)
        #expect(screen.lines[1] == "ab")
        // Overwriting the right half of a wide character blanks its left half.
        screen.put("x", row: 0, column: 1)
        #expect(screen.text(row: 0).hasPrefix(" x小"))
        // Overwriting the left half blanks the right half.
        screen.put("y", row: 0, column: 2)
        #expect(screen.text(row: 0).hasPrefix(" xy "))
    }

    @Test func everyRowOfARenderedListIsExactlyTheScreenWidth() {
        let screen = VirtualScreen(size: ScreenSize(rows: 3, columns: 20))
        let names = ["王小明王小明王小明王小明", "a", "佐藤さくら x"]
        for (row, name) in names.enumerated() {
            screen.put(Columns.layout([.init(name, .plain, nil), .init("9", .plain, 2, right: true)], total: 20), row: row, column: 0, width: 20)
        }
        for row in 0..<3 {
            #expect(DisplayWidth.of(screen.text(row: row)) == 20)
            #expect(screen.text(row: row).hasSuffix(" 9"), "the count column stays put: \(screen.text(row: row))")
        }
    }

    @Test func snapshotsHaveAnAttributeLayerPerTheme() {
        let screen = VirtualScreen(size: ScreenSize(rows: 1, columns: 12))
        screen.put("SANDBOX", row: 0, column: 0, style: CellStyle(.sandbox, bold: true))
        screen.put("✗", row: 0, column: 8, style: CellStyle(.danger))
        let text = screen.snapshot(themes: [.colour256, .monochrome])
        #expect(text.contains("SANDBOX ✗"))
        #expect(text.contains("aaaaaaa.b\na fg:c220 bold\nb fg:c196"))
        #expect(text.contains("== attributes monochrome\naaaaaaa.b\na bold\nb bold underline"))
    }

    @Test func themesFollowTheTerminalAndNoColor() {
        #expect(Theme.choose(colors: 256, hasColors: true, noColor: false) == .colour256)
        #expect(Theme.choose(colors: 8, hasColors: true, noColor: false) == .colour8)
        #expect(Theme.choose(colors: 256, hasColors: true, noColor: true) == .monochrome)
        #expect(Theme.choose(colors: 0, hasColors: false, noColor: false) == .monochrome)
        #expect(Theme.noColorRequested(["NO_COLOR": "1"]))
        #expect(!Theme.noColorRequested(["NO_COLOR": ""]))
        #expect(!Theme.noColorRequested([:]))
        // Meaning never rests on colour alone: monochrome still sets every role apart from plain text.
        for role in [ColorRole.danger, .warning, .sandbox, .local, .match] {
            #expect(!Theme.monochrome.resolve(CellStyle(role)).isDefault, "\(role)")
        }
        #expect(Theme.colour8.resolve(CellStyle(.production)).foreground == .green)
        #expect(Theme.colour8.resolve(CellStyle(.sandbox)).foreground == .yellow)
        #expect(Theme.colour8.resolve(CellStyle(.local)).foreground == .magenta)
        #expect(Theme.colour8.resolve(CellStyle(.danger)).foreground == .red)
    }

    @Test func escapeSequencesBecomeKeys() {
        #expect(KeySequenceDecoder.decode("[A") == .up)
        #expect(KeySequenceDecoder.decode("OB") == .down)
        #expect(KeySequenceDecoder.decode("[5~") == .pageUp)
        #expect(KeySequenceDecoder.decode("[6~") == .pageDown)
        #expect(KeySequenceDecoder.decode("[1~") == .home)
        #expect(KeySequenceDecoder.decode("[F") == .end)
        #expect(KeySequenceDecoder.decode("[Z") == .backTab)
        #expect(KeySequenceDecoder.decode("[99~") == nil)
    }

    @Test func wrappingKeepsStylesAndWidths() {
        let line: StyledLine = [Span("Writes: ", .muted), Span("one manual grant by mei; 王小明's entitlements recomputed; one audit entry")]
        let wrapped = Columns.wrap(line, width: 30)
        #expect(wrapped.count > 1)
        #expect(wrapped.allSatisfy { $0.width == 30 })
        #expect(wrapped[0].first?.style == .muted)
        #expect(ConsoleFormat.wrap("no in-app purchases in this receipt", width: 12).allSatisfy { DisplayWidth.of($0) <= 12 })
    }

    @Test func wideCharactersAreFoundByHalvesAsByAScan() {
        let ranges = DisplayWidth.wideRanges
        #expect(zip(ranges, ranges.dropFirst()).allSatisfy { $0.upperBound < $1.lowerBound }, "ascending, no overlap")
        func scanned(_ v: UInt32) -> Bool { v >= 0x1100 && ranges.contains { $0.contains(v) } }
        var probes: [UInt32] = [0, 0x10FF, 0x1100, 0x2500, 0x257F, 0x3FFFD, 0x3FFFE, 0x10FFFF]
        for range in ranges { probes += [range.lowerBound - 1, range.lowerBound, range.upperBound, range.upperBound + 1] }
        probes += stride(from: UInt32(0), through: 0x40000, by: 97)
        for v in probes { #expect(DisplayWidth.isWide(v) == scanned(v), "U+\(String(v, radix: 16))") }
        #expect(DisplayWidth.of("王" as Character) == 2 && DisplayWidth.of("─" as Character) == 1)
    }

    @Test func aWordThatFillsTheLineIsNotCutForTheSpaceAfterIt() {
        // "alpha bravo" fills 11 columns: with the space after it the line was 12 and lost a letter to "…".
        let wrapped = Columns.wrap([Span("alpha bravo charlie delta")], width: 11, indent: 2)
        #expect(wrapped.map { $0.map(\.text).joined().replacingOccurrences(of: " +$", with: "", options: .regularExpression) }
                    == ["alpha bravo", "  charlie", "  delta"])
        #expect(wrapped.allSatisfy { $0.width == 11 })
        #expect(!wrapped.flatMap { $0.map(\.text) }.joined().contains("…"))
    }
}
