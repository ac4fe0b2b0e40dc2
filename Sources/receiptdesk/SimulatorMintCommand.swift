import Foundation
import ReceiptCore
import StoreSimulator

/// `receiptdesk simulator mint unified|legacy|jws|notification --config FILE --product ID ...`:
/// an artefact signed by the built-in simulator that the config names (the demo's, say), valid
/// for that config's app and known to the simulator afterwards, so import, notify and reverify
/// can be tried on it. The artefact goes to standard output; one line about it to standard error.
enum SimulatorMintCommand {
    static let usage = """
        usage: receiptdesk simulator mint unified|legacy|jws --config FILE --product ID
                                          [--environment production|sandbox] [--account TOKEN]
                                          [--legacy-version 2|3] [--date 2026-12-01T12:00:00Z]
                                          [--original-build BUILD]
               receiptdesk simulator mint notification --config FILE --transaction ID --type TYPE [--subtype S]
        The config must name the built-in simulator (appStore.simulator.stateDirectory), as `make run`'s
        demo config does; what is minted is signed by its test authority, never by Apple.
        """

    static func run(_ arguments: [String]) throws -> ExitStatus {
        var args = Arguments(arguments)
        if args.flag("--help") || args.flag("-h") {
            print(usage)
            return .ok
        }
        let configArgument = try args.value("--config")
        let product = try args.value("--product")
        let environmentText = try args.value("--environment") ?? "production"
        let account = try args.value("--account")
        let versionText = try args.value("--legacy-version") ?? "2"
        let dateText = try args.value("--date")
        let originalBuild = try args.value("--original-build")
        let transaction = try args.value("--transaction")
        let type = try args.value("--type")
        let subtype = try args.value("--subtype")
        guard let format = try args.finish(maxPositionals: 1).first else { throw CommandFailure.usage(usage) }
        let (configPath, configuration) = try ConfigurationLoader.load(argument: configArgument, environment: ProcessInfo.processInfo.environment)
        guard let directory = configuration.appStore.simulatorStateDirectory else {
            throw CommandFailure.usage("config \(configPath ?? "(defaults)") names no simulator (appStore.simulator.stateDirectory): mint signs with the built-in simulator's test authority only")
        }
        guard let environment = SimulatorEnvironment(rawValue: environmentText.capitalized) else {
            throw CommandFailure.usage("--environment \(environmentText) is not production or sandbox")
        }
        guard let blobVersion = UInt8(versionText), [2, 3].contains(blobVersion) else {
            throw CommandFailure.usage("--legacy-version \(versionText) is not 2 or 3")
        }
        if let originalBuild, originalBuild.isEmpty || originalBuild.count > 32 || !originalBuild.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }) {
            throw CommandFailure.usage("--original-build \(originalBuild) is not a build number (digits and dots, at most 32)")
        }
        let now = try dateText.map { try OperatorDate.parse($0, flag: "--date") } ?? Date()
        let stateURL = URL(fileURLWithPath: directory)
        let state: SimulatorState
        do {
            state = try SimulatorStateDirectory.open(stateURL, bundleId: configuration.bundleIds.first ?? "com.example.receiptdesk",
                                                     appAppleId: configuration.appAppleId ?? 1_234_567_890)
        } catch let error as SimulatorError {
            throw CommandFailure(status: .unavailable, message: error.reason)
        }
        // A minted notification is posted where the config's simulator posts them (`serve`, say),
        // as Apple posts to the registered URL; the attempt is recorded with it.
        if let target = configuration.appStore.simulatorNotificationURL {
            do { try state.setNotificationURL(target) } catch let error as SimulatorError { throw CommandFailure.usage(error.reason) }
        }
        let artefact: String
        let what: String
        do {
            // One change under the state directory's lock: from the records as the last process
            // saved them, saved before the lock goes, so mints running at once get different ids.
            (artefact, what) = try state.change { () throws -> (String, String) in
                try mint(format, state: state, environment: environment, product: product, account: account,
                         blobVersion: blobVersion, transaction: transaction, type: type, subtype: subtype,
                         originalBuild: originalBuild ?? defaultOriginalBuild(configuration, environment),
                         configuration: configuration, now: now)
            }
        } catch let error as SimulatorError where error.code == .persistence {
            throw CommandFailure(status: .unavailable, message: error.reason)
        }
        print(artefact)
        if format == "notification", let target = state.notificationURL,
           let sent = state.notifications.last?.sendAttempts?.last {
            printError("posted to \(target.absoluteString): \(sent.result.rawValue)")
        }
        printError("minted \(what) for \(product ?? configuration.bundleIds.first ?? "the app"), signed by the simulator's test authority (not Apple); the simulator knows it now")
        return .ok
    }

    /// Mints the artefact `format` names; returns it and a few words about it.
    private static func mint(_ format: String, state: SimulatorState, environment: SimulatorEnvironment, product: String?,
                             account: String?, blobVersion: UInt8, transaction: String?, type: String?, subtype: String?,
                             originalBuild: String, configuration: StoreConfiguration, now: Date) throws -> (artefact: String, what: String) {
        let artefact: String
        let what: String
        if format == "notification" {
            guard let transaction, let type else { throw CommandFailure.usage("mint notification needs --transaction ID and --type TYPE\n\(usage)") }
            artefact = try state.mintNotification(type: type, subtype: subtype, transactionId: transaction, signedDate: now).body
            what = "a notification \(type)\(subtype.map { "/\($0)" } ?? "") about transaction \(transaction)"
        } else {
            guard let product else { throw CommandFailure.usage("mint \(format) needs --product ID\n\(usage)") }
            let purchase = try simulatedPurchase(product, configuration: configuration, now: now)
            switch format {
            case "unified":
                // The app's current build is at least the one first installed.
                let minted = try state.mintUnifiedReceipt(environment: environment, purchases: [purchase], account: account,
                                                          appVersion: environment == .sandbox ? "1.0" : originalBuild,
                                                          originalAppVersion: originalBuild, creationDate: now)
                artefact = minted.base64
                what = "a \(environment.rawValue.uppercased()) unified receipt (original build \(originalBuild)), transaction \(minted.transactions.map(\.transactionId).joined())"
            case "legacy":
                let minted = try state.mintLegacyReceipt(environment: environment, purchase: purchase, account: account, blobVersion: blobVersion)
                artefact = minted.base64
                what = "a \(environment.rawValue.uppercased()) iOS 6 receipt (signature version \(blobVersion)), transaction \(minted.transactions.map(\.transactionId).joined())"
            case "jws":
                let minted = try state.mintSignedTransaction(environment: environment, purchase: purchase, account: account, signedDate: now)
                artefact = minted.jws
                what = "a \(environment.rawValue.uppercased()) StoreKit 2 transaction \(minted.transaction.transactionId)"
            default:
                throw CommandFailure.usage("mint: '\(format)' is not unified, legacy, jws or notification\n\(usage)")
            }
        }
        return (artefact, what)
    }

    /// The original build a minted unified receipt carries unless `--original-build` says: in
    /// sandbox Apple's constant "1.0"; in production a build after the config's paid-to-free
    /// cutoff (its first number plus 12: 52 for the demo's 40, the demo app's current build), so
    /// a minted receipt is a customer who installed the free app, not a paid-era one; 52 when
    /// the config has no numeric cutoff.
    static func defaultOriginalBuild(_ configuration: StoreConfiguration, _ environment: SimulatorEnvironment) -> String {
        if environment == .sandbox { return "1.0" }
        let cutoff = configuration.paidToFree?.beforeBuild?.split(separator: ".").first.flatMap { Int($0) }
        guard let cutoff, cutoff < 1_000_000 else { return "52" }
        return String(cutoff + 12)
    }

    /// A purchase of a product the config's catalogue lists, typed as the catalogue says.
    static func simulatedPurchase(_ product: String, configuration: StoreConfiguration, now: Date) throws -> SimulatedPurchase {
        guard let entry = configuration.products[product] else {
            let known = configuration.products.keys.sorted().joined(separator: ", ")
            throw CommandFailure.usage("--product \(product) is not in the config's products (\(known.isEmpty ? "none" : known))")
        }
        let type: SimulatedProductType
        var expires: Date?
        switch entry.type {
        case .autoRenewable:
            type = .autoRenewable
            expires = now.addingTimeInterval(30 * 86_400)
        case .nonRenewing: type = .nonRenewing
        case .consumable: type = .consumable
        case .nonConsumable: type = .nonConsumable
        }
        return SimulatedPurchase(productId: product, type: type, purchaseDate: now, expiresDate: expires)
    }
}
