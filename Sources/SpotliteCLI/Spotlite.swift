import ArgumentParser
import Foundation

/// The `spotlite` command tree.
public struct Spotlite: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "spotlite",
        abstract: "Full-text search for tracker data: a store of projects and items, and a Xapian index that follows it.",
        discussion: """
            Exit codes: 0 success; 1 no hits (search) or differences (verify); 2 bad usage or input; \
            3 not found; 4 URI of another store; 5 store problem; 6 index problem (or kept by a running watch).
            """,
        version: "0.1.0",
        subcommands: [
            InitCommand.self, ImportCommand.self, ExportCommand.self, AddCommand.self, EditCommand.self,
            CompleteCommand.self, ReopenCommand.self, DeleteCommand.self, IndexCommand.self, SearchCommand.self,
            ResolveCommand.self, StatusCommand.self, VerifyCommand.self, WatchCommand.self,
        ]
    )

    public init() {}

    /// Parses the process arguments, runs the command, and exits with a documented status (README "Exit codes").
    /// Errors become one line on stderr; nothing below prints a stack trace.
    public static func runAsMain(_ arguments: [String]? = nil) -> Never {
        do {
            var command = try parseAsRoot(arguments)
            try command.run()
            terminate(ExitStatus.success.rawValue)
        } catch let error as ExitCode {
            terminate(error.rawValue)
        } catch let error as CLIError {
            Output.note("spotlite: \(error.message)")
            terminate(error.status.rawValue)
        } catch {
            let parserCode = exitCode(for: error)
            if parserCode == .success {
                // --help and --version.
                Output.line(fullMessage(for: error))
                terminate(ExitStatus.success.rawValue)
            }
            if isParserError(error) {
                Output.note(fullMessage(for: error))
                terminate(ExitStatus.usage.rawValue)
            }
            let failure = CLIError.from(error)
            Output.note("spotlite: \(failure.message)")
            terminate(failure.status.rawValue)
        }
    }

    /// Whether swift-argument-parser raised this error about the command line itself.
    static func isParserError(_ error: any Error) -> Bool {
        let name = String(reflecting: type(of: error))
        return name.hasPrefix("ArgumentParser.") || error is ValidationError
    }
}

/// Runs a command body, turning every error into a ``CLIError`` with its exit status.
func running<T>(_ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let error as ExitCode {
        throw error
    } catch {
        throw CLIError.from(error)
    }
}

/// Ends the process with a status (flushing stdout first).
func terminate(_ status: Int32) -> Never {
    Output.flush()
    Foundation.exit(status)
}
