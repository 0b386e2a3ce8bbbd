// SwiftPM links an executable's entry point as `<Target>_main`; with `-sanitize=fuzzer` the entry point is
// libFuzzer's driver, which each target's `<Target>_main` hands the process's arguments to through this.

@_silgen_name("LLVMFuzzerRunDriver")
func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt
) -> CInt

/// Runs libFuzzer with the process's arguments on `body`, which gets each input (and returns 0).
public func runFuzzer(
    _ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
    _ body: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt
) -> CInt {
    var count = argc
    var arguments = argv
    return withUnsafeMutablePointer(to: &arguments) { runFuzzerDriver(&count, $0, body) }
}
