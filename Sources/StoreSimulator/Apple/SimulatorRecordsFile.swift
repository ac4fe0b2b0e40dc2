import Foundation

/// Writes `SimulatorRecords` as the JSON `JSONEncoder` writes for them (keys sorted, dates in
/// milliseconds), a member at a time and the large collections an element at a time, through a
/// 1 MB buffer to a temporary file that then replaces `file`. Encoding the records whole built
/// the whole tree and the whole text in memory at once: a 30,000-customer demo's save added
/// more than its records themselves to the process's peak.
enum SimulatorRecordsFile {
    static func write(_ records: SimulatorRecords, to file: URL) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .millisecondsSince1970
        let temporary = file.deletingLastPathComponent().appendingPathComponent(".\(file.lastPathComponent).\(UUID().uuidString).tmp")
        guard FileManager.default.createFile(atPath: temporary.path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: temporary.path])
        }
        do {
            let handle = try FileHandle(forWritingTo: temporary)
            var output = Output(handle: handle)
            do {
                try output.members(records, encoder)
                try output.flush()
                try handle.synchronize()
                try handle.close()
            } catch {
                try? handle.close()  // the write's error is the one to report
                throw error
            }
            guard rename(temporary.path, file.path) == 0 else {
                throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: file.path, NSLocalizedDescriptionKey: String(cString: strerror(errno))])
            }
        } catch {
            try? FileManager.default.removeItem(at: temporary)  // may be gone already
            throw error
        }
    }

    private struct Output {
        let handle: FileHandle
        var buffer: [UInt8] = []

        init(handle: FileHandle) {
            self.handle = handle
            buffer.reserveCapacity(1 << 20)
        }

        mutating func append(_ text: String) throws { try append(Array(text.utf8)) }

        mutating func append<Bytes: Sequence>(_ bytes: Bytes) throws where Bytes.Element == UInt8 {
            buffer.append(contentsOf: bytes)
            if buffer.count >= 1 << 20 { try flush() }
        }

        mutating func flush() throws {
            guard !buffer.isEmpty else { return }
            try handle.write(contentsOf: buffer)
            buffer.removeAll(keepingCapacity: true)
        }

        /// `"key":` then `value` whole.
        mutating func member<T: Encodable>(_ key: SimulatorRecords.CodingKeys, _ value: T, _ encoder: JSONEncoder) throws {
            try append(try encoder.encode(key.stringValue) + Data(":".utf8))
            try append(try encoder.encode(value))
        }

        /// `"key":{…}` an entry at a time, in key order (as `.sortedKeys` orders them).
        mutating func dictionary<T: Encodable>(_ key: SimulatorRecords.CodingKeys, _ value: [String: T], _ encoder: JSONEncoder) throws {
            try append(try encoder.encode(key.stringValue) + Data(":{".utf8))
            for (index, entry) in value.keys.sorted().enumerated() {
                if index > 0 { try append(",") }
                try append(try encoder.encode(entry) + Data(":".utf8))
                try append(try encoder.encode(value[entry]!))
            }
            try append("}")
        }

        /// `"key":[…]` an element at a time.
        mutating func array<T: Encodable>(_ key: SimulatorRecords.CodingKeys, _ value: [T], _ encoder: JSONEncoder) throws {
            try append(try encoder.encode(key.stringValue) + Data(":[".utf8))
            for (index, element) in value.enumerated() {
                if index > 0 { try append(",") }
                try append(try encoder.encode(element))
            }
            try append("]")
        }

        /// Every member the records encode, in key order.
        mutating func members(_ records: SimulatorRecords, _ encoder: JSONEncoder) throws {
            try append("{")
            for (index, key) in SimulatorRecords.CodingKeys.allCases.sorted(by: { $0.stringValue < $1.stringValue }).enumerated() {
                if index > 0 { try append(",") }
                switch key {
                case .version: try member(key, records.version, encoder)
                case .bundleId: try member(key, records.bundleId, encoder)
                case .appAppleId: try member(key, records.appAppleId, encoder)
                case .transactions: try dictionary(key, records.transactions, encoder)
                case .orders: try dictionary(key, records.orders, encoder)
                case .subscriptions: try dictionary(key, records.subscriptions, encoder)
                case .notifications: try array(key, records.notifications, encoder)
                case .nextTransactionNumber: try member(key, records.nextTransactionNumber, encoder)
                case .nextOrderNumber: try member(key, records.nextOrderNumber, encoder)
                case .nextAccountNumber: try member(key, records.nextAccountNumber, encoder)
                case .nextWebOrderNumber: try member(key, records.nextWebOrderNumber, encoder)
                case .extensions: try array(key, records.extensions, encoder)
                case .massExtensions: try dictionary(key, records.massExtensions, encoder)
                case .consumption: try array(key, records.consumption, encoder)
                case .pendingConsumptionRequests: try dictionary(key, records.pendingConsumptionRequests, encoder)
                case .testNotifications: try dictionary(key, records.testNotifications, encoder)
                case .finishedTransactions: try dictionary(key, records.finishedTransactions, encoder)
                }
            }
            try append("}")
        }
    }
}
