import Foundation
import XCTest

/// A child process run to the end, with what it cost: its exit, its peak resident memory and its wall time.
struct MeasuredRun {
    /// The exit status, or nil when the child was killed by a signal.
    var exitStatus: Int32?
    /// The signal that ended the child, if one did (SIGKILL when it ran past its time limit).
    var signal: Int32?
    /// Peak resident set size of the child alone, in bytes: the largest VmHWM read from /proc/<pid>/status while it
    /// ran (every 5 ms; VmHWM never decreases, so only growth in the last few milliseconds can be missed).
    var peakResidentBytes: Int
    var seconds: Double
    var standardError: String

    /// Runs `executable` with `arguments`, standard output discarded and standard error kept; a child still running
    /// after `timeLimit` seconds is killed. Not `ru_maxrss`: Linux carries it across exec, so a child spawned by the
    /// test process starts with the test process's peak.
    static func run(_ executable: String, _ arguments: [String], timeLimit: Double) throws -> MeasuredRun {
        let errorFile = FileManager.default.temporaryDirectory.appendingPathComponent("stderr-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: errorFile) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, errorFile, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let start = Date()
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv, environ)
        guard spawned == 0 else { throw NSError(domain: NSPOSIXErrorDomain, code: Int(spawned)) }
        var status: Int32 = 0
        var usage = rusage()
        var peak = 0
        while true {
            peak = max(peak, Self.highWaterMark(of: pid))
            let waited = wait4(pid, &status, WNOHANG, &usage)
            if waited == pid { break }
            if waited < 0 && errno != EINTR { throw NSError(domain: NSPOSIXErrorDomain, code: Int(errno)) }
            if Date().timeIntervalSince(start) > timeLimit {
                kill(pid, SIGKILL)
                while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
                break
            }
            usleep(5_000)
        }
        let seconds = Date().timeIntervalSince(start)
        // The wait status: the low 7 bits are the terminating signal (0 for a normal exit, whose code is bits 8-15).
        let terminatingSignal = status & 0x7f
        return MeasuredRun(exitStatus: terminatingSignal == 0 ? (status >> 8) & 0xff : nil,
                           signal: terminatingSignal == 0 ? nil : terminatingSignal,
                           peakResidentBytes: peak, seconds: seconds,
                           standardError: (try? String(contentsOfFile: errorFile, encoding: .utf8)) ?? "")
    }

    /// VmHWM of process `pid` in bytes (0 once it has exited).
    static func highWaterMark(of pid: pid_t) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
              let kilobytes = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") else { return 0 }
        return kilobytes * 1024
    }
}
