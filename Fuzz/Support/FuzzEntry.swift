import Foundation

// The libFuzzer entry points every fuzz target shares. Each target file defines
// `enum FuzzTarget` with `static func run(_ bytes: [UInt8])` (one input, must never crash)
// and `static func seeds() throws -> [[UInt8]]` (generated seed inputs). Built by
// scripts/fuzz.sh with `swiftc -parse-as-library -sanitize=fuzzer,address`.

/// Called by libFuzzer for each input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    FuzzTarget.run(bytes)
    return 0
}

/// Called by libFuzzer once before the first input. With `RECEIPTDESK_FUZZ_SEED_DIR` set, writes
/// the target's generated seeds into that folder (named by their content's hash) first.
@_cdecl("LLVMFuzzerInitialize")
public func fuzzInitialize(_ argc: UnsafeMutablePointer<CInt>?,
                           _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>?) -> CInt {
    guard let directory = ProcessInfo.processInfo.environment["RECEIPTDESK_FUZZ_SEED_DIR"], !directory.isEmpty else { return 0 }
    do {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let seeds = try FuzzTarget.seeds()
        for seed in seeds {
            let name = "gen-" + String(FuzzSeeds.fnv1a(seed), radix: 16)
            _ = FileManager.default.createFile(atPath: directory + "/" + name, contents: Data(seed))
        }
        FileHandle.standardError.write(Data("wrote \(seeds.count) generated seeds to \(directory)\n".utf8))
    } catch {
        FileHandle.standardError.write(Data("seed generation failed: \(error)\n".utf8))
        exit(1)
    }
    return 0
}
