import ArgumentParser
import Foundation
import SpotliteJSON

/// The `spotlite` command tree.
public struct Spotlite: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "spotlite",
        abstract:
            "Full-text search for tracker data: a store of projects and items, and a Xapian index that follows it.",
        discussion: """
            Exit codes: 0 success; 1 no hits (search) or differences (verify); 2 bad usage or input; \
            3 not found; 4 URI of another store; 5 store problem; 6 index problem (or kept by a running watch); \
            7 search --stores: nothing found, and some stores failed.
            """,
        version: "0.1.0",
        subcommands: [
            InitCommand.self, ImportCommand.self, ExportCommand.self, AddCommand.self, EditCommand.self,
            CompleteCommand.self, ReopenCommand.self, DeleteCommand.self, IndexCommand.self, SearchCommand.self,
            SimilarCommand.self, ResolveCommand.self, OpenCommand.self, StatusCommand.self, VerifyCommand.self,
            WatchCommand.self, ServeCommand.self, ReplicaCommand.self, SubscribeCommand.self, SubscriptionsCommand.self,
            StoresCommand.self,
            CommentCommand.self,
            MessagesCommand.self,
        ]
    )

    public init() {}

    /// Parses the process arguments, runs the command, and exits with a documented status (docs/exit-codes-and-files.md).
    /// Errors become one line on stderr; nothing below prints a stack trace.
    public static func runAsMain(_ arguments: [String]? = nil) -> Never {
        Output.prepareStandardStreams()
        do {
            let arguments = try normalized(arguments ?? Array(CommandLine.arguments.dropFirst()))
            var command = try parseAsRoot(arguments)
            try command.run()
            terminate(ExitCode.success.rawValue)
        } catch is ExitQuietly {
            terminate(ExitCode.success.rawValue)
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
                terminate(ExitCode.success.rawValue)
            }
            if isParserError(error) {
                Output.note("spotlite: " + oneLine(message(for: error), arguments: arguments))
                terminate(ErrorCode.usage.rawValue)
            }
            let failure = CLIError.from(error)
            Output.note("spotlite: \(failure.message)")
            terminate(failure.status.rawValue)
        }
    }

    /// The options every command shares (``StoreOptions``), which people also write before the command.
    static let sharedOptions: Set<String> = ["--store", "--index"]

    /// The command line as the parser takes it: `--store X` and `--index X` written before the command move after
    /// it (`spotlite --store X init` works), and `help` of a command that does not exist is an error, not the main
    /// help.
    static func normalized(_ arguments: [String]) throws -> [String] {
        var leading: [String] = []
        var rest = arguments[...]
        while let first = rest.first, let name = first.split(separator: "=", maxSplits: 1).first,
            sharedOptions.contains(String(name))
        {
            leading.append(first)
            rest = rest.dropFirst()
            if !first.contains("=") {
                guard let value = rest.first else { break }
                leading.append(value)
                rest = rest.dropFirst()
            }
        }
        if rest.first == "help", rest.count > 1 {
            try checkCommandPath(Array(rest.dropFirst()))
        }
        if rest.first == "search" { rest = expandingShortOptions(rest) }
        guard !leading.isEmpty else { return Array(rest) }
        // After the command's name, and its subcommand's (`add item`).
        let names = commandPathLength(Array(rest))
        guard names > 0 else {
            let given = leading.joined(separator: " ")
            throw CLIError("give a command after \(given), e.g. spotlite \(given) status", status: .usage)
        }
        let split = rest.startIndex + names
        return Array(rest[..<split]) + leading + Array(rest[split...])
    }

    /// `search`'s short options in their long form: its query takes every argument the parser does not recognise
    /// (so `-word` needs no quoting), and swift-argument-parser then leaves short options to the query. Everything
    /// after `--` is the query, options or not: it goes to the parser as the one value of the hidden
    /// `--query-after-options=…`, which no option parsing looks into.
    static func expandingShortOptions(_ arguments: ArraySlice<String>) -> ArraySlice<String> {
        var result: [String] = []
        for (index, argument) in zip(arguments.indices, arguments) {
            if argument == "--" {
                let rest = arguments[(index + 1)...]
                if !rest.isEmpty { result.append(SearchCommand.queryAfterOptions + "=" + rest.joined(separator: " ")) }
                break
            } else if argument == "-n" {
                result.append("--limit")
            } else if argument.hasPrefix("-n"), argument.count > 2, argument.dropFirst(2).allSatisfy(\.isNumber) {
                result += ["--limit", String(argument.dropFirst(2))]
            } else if argument == "-0" {
                result.append("--null")
            } else {
                result.append(argument)
            }
        }
        return result[...]
    }

    /// The subcommands of `command`, by name.
    static func subcommands(of command: any ParsableCommand.Type) -> [String: any ParsableCommand.Type] {
        var result: [String: any ParsableCommand.Type] = [:]
        for subcommand in command.configuration.subcommands {
            if let name = subcommand.configuration.commandName { result[name] = subcommand }
        }
        return result
    }

    /// How many of the leading words of `words` name a command and its subcommands.
    static func commandPathLength(_ words: [String]) -> Int {
        var command: any ParsableCommand.Type = Spotlite.self
        var length = 0
        for word in words {
            guard let next = subcommands(of: command)[word] else { break }
            command = next
            length += 1
        }
        return length
    }

    /// Throws a usage error unless `path` (after `help`) names a command.
    static func checkCommandPath(_ path: [String]) throws {
        let words = path.filter { !$0.hasPrefix("-") }
        guard commandPathLength(words) < words.count else { return }
        let known = subcommands(of: Spotlite.self).keys.sorted()
        throw CLIError(
            "there is no command '\(words.joined(separator: " "))'; the commands are \(known.joined(separator: ", "))",
            status: .usage)
    }

    /// A parser message on one line, as every error is (its list of valid values folded in), with where to look.
    static func oneLine(_ message: String, arguments: [String]?) -> String {
        let lines = message.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter {
            !$0.isEmpty
        }
        var text = (lines.first ?? "bad usage").replacingOccurrences(of: "Error: ", with: "")
        let values = lines.dropFirst().filter { $0.hasPrefix("- ") }.map { $0.dropFirst(2) }
        if !values.isEmpty {
            if text.hasSuffix(":") { text.removeLast() }
            text += ": " + values.joined(separator: ", ")
        }
        if text.hasSuffix(".") { text.removeLast() }
        let command = commandPathLength(arguments ?? Array(CommandLine.arguments.dropFirst()))
        let words = Array((arguments ?? Array(CommandLine.arguments.dropFirst())).prefix(command))
        return text + "; see `spotlite help\(words.isEmpty ? "" : " " + words.joined(separator: " "))`"
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
    } catch let error as ExitQuietly {
        throw error
    } catch {
        throw CLIError.from(error)
    }
}

/// Ends the process with a status, after writing what stdout holds. A failed write is reported and ends it with
/// status 2 (a reader that went away, `EPIPE`, leaves the status as it was).
func terminate(_ status: Int32) -> Never {
    Output.flush()
    if let failure = Output.failure, failure != EPIPE {
        if !Output.failureThrown { Output.note("spotlite: \(Output.writeError(failure).message)") }
        Foundation.exit(ErrorCode.usage.rawValue)
    }
    Foundation.exit(status)
}
