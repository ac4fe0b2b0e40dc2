import Foundation
import ReceiptCore

/// A directory holding everything a simulator needs to come back as it was, so a demo database
/// made through it can be re-verified in a later run:
///
///     DIR/authority/…     the test authority (`TestCertificateAuthority.save(to:)`)
///     DIR/state.json      the records (`SimulatorState.save(to:)`)
///
/// Neither the shared secret nor the Server API key is kept here. A state opened here saves its
/// records to state.json after each change a Server API request makes (`autosaveFile`), so a
/// later process sees an extension or a new app account token.
public enum SimulatorStateDirectory {
    /// The authority's sub-directory.
    public static let authorityFolder = "authority"
    /// The records' file name.
    public static let stateFile = "state.json"
    /// Validity start of an authority made here: 2008-01-01, so receipts of the iOS 6 era verify.
    public static let validFrom = CivilTime(year: 2008, month: 1, day: 1).date
    /// Validity end of an authority made here: 2045-01-01.
    public static let validUntil = CivilTime(year: 2045, month: 1, day: 1).date

    /// The state saved in `directory`; when nothing is saved there yet, a new authority (valid
    /// 2008–2045, about a second of key generation) and empty records for `bundleId`, saved at once.
    public static func open(_ directory: URL, bundleId: String = "com.example.receiptdesk",
                            appAppleId: Int64 = 1_234_567_890) throws -> SimulatorState {
        let authorityDirectory = directory.appendingPathComponent(authorityFolder)
        let stateURL = directory.appendingPathComponent(stateFile)
        let manager = FileManager.default
        if manager.fileExists(atPath: authorityDirectory.appendingPathComponent("authority.json").path) {
            let state = SimulatorState(authority: try TestCertificateAuthority.load(from: authorityDirectory),
                                       bundleId: bundleId, appAppleId: appAppleId)
            if manager.fileExists(atPath: stateURL.path) { try state.load(from: stateURL) }
            state.autosaveFile = stateURL
            return state
        }
        let authority = try TestCertificateAuthority.make(validFrom: validFrom, validUntil: validUntil)
        let state = SimulatorState(authority: authority, bundleId: bundleId, appAppleId: appAppleId)
        try save(state, to: directory)
        state.autosaveFile = stateURL
        return state
    }

    /// Saves the authority and the records into `directory`.
    public static func save(_ state: SimulatorState, to directory: URL) throws {
        try state.authority.save(to: directory.appendingPathComponent(authorityFolder))
        try state.save(to: directory.appendingPathComponent(stateFile))
    }
}
