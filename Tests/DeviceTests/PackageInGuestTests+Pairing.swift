import Foundation
import RecorderModel
import RecorderTestSupport
import Testing

extension PackageInGuestTests {
    /// Pairing with a heart-rate sensor that wants it, with the sensor in a second guest
    /// (`VMGuest.runJoined`): one kernel and one `bluetoothd` a side, as a Pi and a strap are. (With
    /// both sides on one kernel, Debian's 6.1 oopsed in `hci_chan_del` right after the first pairing,
    /// and the one bluetoothd's agent answered for both ends.) The air between them is one `btvirt`
    /// in the recorder's guest: its LE controller (`-L -l1`, hci0 there) and its LE server (`-s`),
    /// which makes an emulated controller for whatever connects — the sensor's guest, over a serial
    /// line qemu joins between the guests (`scripts/vm/serial-bridge.py` on the recorder's side,
    /// whole H:4 packets to btvirt; `btattach -P h4` on the sensor's: its kernel drives that
    /// controller as it would a UART one). A second serial line carries the recorder guest's commands
    /// to the sensor's (start the sensor with these options, stop it). The sensor is
    /// `scripts/vm/heart-rate-peripheral.py` with its notifications over an encrypted link only,
    /// "just works" or with a fixed passkey (its own agent enters it). recorderd is the installed
    /// package under systemd, as in the other guests. Both bluetoothd log at debug level and the
    /// recorder's side runs btmon: a failure prints both sides' ATT time-outs and refusals, and the
    /// whole logs are in the shares (kept with RECORDERD_KEEP_TEST_FILES=1).
    ///
    /// Nested in the package's suite, so run after its tests and not beside them: two more TCG
    /// guests beside the two of the other guest suites starved all of them (CI), and the package's
    /// tests end before the heart-rate suite's.
    @Suite("Pairing with a heart-rate sensor in a second guest")
    struct Pairing {
        /// Each case from nothing (both sides forget the bond between them): a sensor whose
        /// notifications want encryption ("just works") is paired within the subscription, through
        /// recorderd's agent, and every notification recorded exactly; one that wants a passkey is
        /// paired with the configured passkey and recorded the same; given a wrong passkey, or none,
        /// the fault says what to do and nothing is recorded as a beat.
        @Test(.enabled(if: HeartRateInGuestTests.enabled("PackageInGuestTests.Pairing")), .timeLimit(.minutes(16)), .ownThread)
        func sensorsThatWantPairingArePairedThroughRecorderdsAgent() async throws {
            let deb = try #require(PackageInGuestTests.package, "\(VMGuest.noPackage)")
            let name = URL(fileURLWithPath: deb).lastPathComponent
            let scripts = VMGuest.packageRoot + "/scripts/vm/"
            let (recorder, sensor) = try await VMGuest.runJoined(
                VMGuest.Setup(script: Self.recorderScript.replacingOccurrences(of: "@DEB@", with: name),
                              files: [name: deb, "serial-bridge.py": scripts + "serial-bridge.py"]),
                VMGuest.Setup(script: Self.sensorScript, files: ["peripheral.py": scripts + "heart-rate-peripheral.py"], memory: 512),
                lines: 2, timeout: 900)
            let facts = PackageInGuestTests.facts(recorder.output)
            // What either bluetoothd found wrong on the link: ATT requests unanswered, advertising refused.
            let troubles = [("recorder", recorder.share), ("sensor", sensor.share)].map { side, share in
                let log = (try? String(contentsOfFile: share + "/bluetoothd.txt", encoding: .utf8)) ?? ""
                return "--- \(side)'s bluetoothd (\(share)):\n" + log.split(whereSeparator: \.isNewline)
                    .filter { $0.contains("timed out") || $0.contains("Failed") || $0.contains("failed") }.suffix(20).joined(separator: "\n")
            }.joined(separator: "\n")
            let context = "\(recorder.output.suffix(4000))\n--- the sensor's guest:\n\(sensor.output.suffix(3000))\n\(troubles)"
            #expect(recorder.status == 0 && sensor.status == 0, "\(context)\n--- console:\n\(recorder.console.suffix(2000))")
            #expect(facts["installed"] == "ok" && facts["adapter"] == "1" && facts["bridged"] == "0"
                && facts["sensor"].map { $0.hasPrefix("attached ") && $0.count > "attached ".count } == true, "\(facts)\n\(context)")

            // What each case recorded.
            func records(_ name: String) throws -> [Record] { try Fixtures.records(recorder.share + "/\(name).jsonl") }
            func beats(_ name: String) throws -> [Record] { try records(name).filter { $0.isSample && $0.sensorType == "heartRate" } }
            func faults(_ name: String) throws -> [String] { try records(name).filter { $0.event == "error" }.compactMap(\.errorDescription) }
            let expected = HeartRateInGuestTests.expected

            for name in ["justworks", "passkey"] {
                #expect(facts["\(name)Sensor"] == "ready 0" && facts["\(name)Waited"] == "0" && facts["\(name)Finished"] == "0", "\(name): \(facts)\n\(context)")
                let got = try beats(name), refused = try faults(name)
                #expect(got.count == expected.count, "\(name): \(got.count) of \(expected.count) beats; faults: \(refused)\n\(context)")
                for (record, want) in zip(got, expected) {
                    #expect(record.heartRate == want.rate && record.contact == want.contact && record.energyExpended == want.energy
                        && (record.rrIntervals ?? []) == want.rr.map { Double($0) / 1024 }, "\(name): \(record) vs \(want)")
                }
                // BlueZ lists the sensor paired, and devices.list says so.
                #expect(facts["\(name)Paired"] == "true", "\(name): \(facts)")
                #expect(facts["\(name)DevicesPaired"] == "yes", "\(name): \(facts)")
            }
            #expect(sensor.output.contains("gatt: Channels = 1"), "the sensor's BlueZ without EATT: \(sensor.output.prefix(2000))")
            // "Just works": the kernel paired within the subscription and BlueZ asked recorderd's
            // agent to confirm (no agent of the system's own in the guest, as on a headless Pi).
            #expect(sensor.output.contains("agent: authorization asked"), "\(sensor.output)")
            #expect(Int(facts["agentAnswered"] ?? "") ?? 0 >= 1, "recorderd's agent answered BlueZ: \(facts)")
            // The passkey: the sensor's agent asked for it, recorderd's entered the same.
            #expect(sensor.output.contains("agent: passkey asked"), "\(sensor.output)")

            // The wrong passkey: the fault says to check it; nothing recorded as a beat.
            #expect(facts["wrongWaited"] == "0" && facts["wrongFinished"] == "0", "\(facts)\n\(context)")
            let wrong = try faults("wrong"), none = try faults("none")
            #expect(try beats("wrong").isEmpty)
            #expect(wrong.contains {
                $0.hasPrefix("pairing with ") && $0.hasSuffix("the sensor asked for the passkey and was given the configured one: is it the sensor's?")
            }, "\(wrong)")
            // No passkey configured for a sensor that wants one: the fault says to set it.
            #expect(facts["noneWaited"] == "0" && facts["noneFinished"] == "0", "\(facts)\n\(context)")
            #expect(try beats("none").isEmpty)
            #expect(none.contains { $0.contains("\"passkey\" in its device configuration") }, "\(none)")
            print("GUEST pairing: wrong passkey: \(wrong.first ?? "-"); no passkey: \(none.first ?? "-")")
        }

        /// The recorder's guest: the package, the air (btvirt), the line to the sensor's guest; then
        /// each case: the sensor started with its options, recorderd configured and recording until
        /// the sequence's last notification or the first fault, the files kept, both sides' bond
        /// forgotten.
        static let recorderScript = #"""
        set -u
        fact() { echo "fact $1=$2"; }
        cd /vmtest
        DEBIAN_FRONTEND=noninteractive apt-get install -y /vmtest/@DEB@ > /dev/null 2>&1 && fact installed ok
        modprobe bluetooth
        modprobe hci_vhci
        \#(HeartRateInGuestTests.bluezSettings)
        systemctl start bluetooth
        # btmon: what a failure is read from (the shares' files).
        btmon -w /tmp/btmon.snoop > /dev/null 2>&1 &
        # The air: btvirt's LE controller (hci0 here) and its LE server. A controller whose
        # initialisation timed out under load (BlueZ then lists none) is made again, as in
        # HeartRateInGuestTests: up to three attempts, BlueZ's listing polled at most 30 s each.
        for attempt in 1 2 3; do
          btvirt -L -l1 -s > /tmp/btvirt.log 2>&1 &
          btvirt=$!
          for i in $(seq 300); do busctl tree org.bluez 2>/dev/null | grep -q '/org/bluez/hci0$' && [ -S /tmp/bt-server-le ] && break; sleep 0.1; done
          busctl tree org.bluez 2>/dev/null | grep -q '/org/bluez/hci0$' && break
          echo "btvirt: attempt $attempt: BlueZ has no hci0"
          kill "$btvirt"; wait "$btvirt"
          systemctl restart bluetooth
        done
        fact adapter "$(busctl tree org.bluez 2>/dev/null | grep -c '/org/bluez/hci0$')"
        python3 /vmtest/serial-bridge.py /dev/ttyS1 /tmp/bt-server-le > /tmp/bridge.out 2>&1 &
        timeout 30 sh -c 'tail -n +1 -f /tmp/bridge.out | grep -q -m1 bridged'; fact bridged $?
        stty -F /dev/ttyS2 raw -echo -crtscts
        exec 3<>/dev/ttyS2
        # A command to the sensor's guest and its one-line answer (at most 3 min).
        ask() { echo "$*" >&3; reply=$(timeout 180 head -n 1 <&3); echo "sensor: $* -> $reply"; }
        ask attach
        fact sensor "$reply"
        sensor=$(echo "$reply" | cut -d' ' -f2)
        device=/org/bluez/hci0/dev_$(echo "$sensor" | tr : _)
        configure() { # NAME PASSKEY-OR-EMPTY
          python3 - "$1" "$sensor" "$2" <<'PY'
        import json, sys
        name, address, passkey = sys.argv[1:]
        path = "/etc/recorderd/recorderd.json"
        config = json.load(open(path))
        device = {"name": name, "kind": "heartRate", "address": address}
        if passkey:
            device["passkey"] = int(passkey)
        config["devices"] = [d for d in config["devices"] if d.get("kind") != "heartRate"] + [device]
        json.dump(config, open(path, "w"), indent=2)
        PY
          systemctl reload-or-restart recorderd.service
          timeout 60 recorderctl status > /dev/null
        }
        attempt() { # CASE SENSOR-OPTIONS PASSKEY-OR-EMPTY AWAITED
          ask "start /vmtest/sent-$1.log 0.5 99 10 once,discoverable,$2"
          fact "$1Sensor" "$reply"
          configure "hr-$1" "$3"
          started=$(timeout 60 recorderctl start "pair-$1" --actions "[{\"identifier\": \"heartRate\", \"type\": \"heartRate\", \"device\": \"hr-$1\"}]")
          uuid=$(echo "$started" | sed -n 1p); dir=$(echo "$started" | sed -n 2p)
          timeout 180 sh -c "tail -n +1 -F '$dir/heartRate.jsonl' 2>/dev/null | grep -q -m1 -E '$4'"; fact "$1Waited" $?
          timeout 60 recorderctl devices --json > "/vmtest/devices-$1.json"
          fact "$1DevicesPaired" "$(tr -d '\n' < "/vmtest/devices-$1.json" | grep -o '"paired" *: *"[^"]*"' | head -1 | sed 's/.*: *"//; s/"$//')"
          fact "$1Paired" "$(busctl get-property org.bluez "$device" org.bluez.Device1 Paired | cut -d' ' -f2)"
          timeout 60 recorderctl finish "$uuid" > /dev/null; fact "$1Finished" $?
          cp "$dir/heartRate.jsonl" "/vmtest/$1.jsonl"
          ask stop
          busctl call org.bluez /org/bluez/hci0 org.bluez.Adapter1 RemoveDevice o "$device"
        }
        attempt justworks encrypt "" '"heartRate":80,'
        attempt passkey passkey=123456 123456 '"heartRate":80,'
        attempt wrong passkey=123456 654321 '"event":"error"'
        attempt none passkey=123456 "" '"event":"error"'
        journalctl -u bluetooth --no-pager > /vmtest/bluetoothd.txt
        journalctl -u recorderd --no-pager > /vmtest/recorderd.txt
        cp /tmp/btmon.snoop /vmtest/; btmon -r /tmp/btmon.snoop > /vmtest/btmon.txt 2>&1
        fact agentAnswered "$(journalctl -u recorderd --no-pager | grep -c "asked recorderd's agent .*: answered")"
        echo quit >&3
        journalctl -u recorderd --no-pager | grep -i "agent\|pair\|hr-" | tail -30
        exit 0
        """#

        /// The sensor's guest: waits for the recorder guest's commands on its second serial line —
        /// `attach` (its controller over the first line, bluetoothd; answers with its address),
        /// `start ARGUMENTS` (the peripheral; answers when it advertises), `stop`, `quit` (no answer).
        static let sensorScript = #"""
        set -u
        cd /vmtest
        modprobe bluetooth
        modprobe hci_uart
        stty -F /dev/ttyS2 raw -echo -crtscts
        exec 3<>/dev/ttyS2
        peripheral=
        while read -r command arguments <&3; do
          echo "command: $command $arguments"
          case $command in
            attach)
              # One ATT bearer (no EATT) and debug logging, as in every heart-rate guest.
              \#(HeartRateInGuestTests.bluezSettings)
              systemctl start bluetooth
              # BlueZ taking the controller up (a state: polled, at most 30 s); one whose
              # initialisation timed out under load is attached again, up to three attempts.
              for attempt in 1 2 3; do
                btattach -N -B /dev/ttyS1 -P h4 > /tmp/btattach.out 2>&1 &
                btattach=$!
                for i in $(seq 300); do busctl tree org.bluez 2>/dev/null | grep -q '/org/bluez/hci0$' && break; sleep 0.1; done
                busctl tree org.bluez 2>/dev/null | grep -q '/org/bluez/hci0$' && break
                echo "btattach: attempt $attempt: BlueZ has no hci0"
                kill "$btattach"; wait "$btattach"
                systemctl restart bluetooth
              done
              echo "attached $(busctl get-property org.bluez /org/bluez/hci0 org.bluez.Adapter1 Address | cut -d'"' -f2)" >&3 ;;
            start)
              python3 /vmtest/peripheral.py hci0 $arguments > /tmp/peripheral.out 2>&1 &
              peripheral=$!
              timeout 60 sh -c 'tail -n +1 -f /tmp/peripheral.out | grep -q -m1 ready'
              ready=$?
              if [ $ready != 0 ]; then
                cat /tmp/peripheral.out; btmgmt --index 0 info; btmgmt --index 0 advinfo; busctl tree org.bluez
                journalctl -u bluetooth --no-pager | tail -20
              fi
              echo "ready $ready" >&3 ;;
            stop)
              kill "$peripheral"; wait "$peripheral"
              cat /tmp/peripheral.out | tee -a /vmtest/peripheral.txt
              echo "stopped" >&3 ;;
            quit) break ;;
          esac
        done
        cat /tmp/btattach.out
        journalctl -u bluetooth --no-pager > /vmtest/bluetoothd.txt
        exit 0
        """#
    }
}
