package shell

import (
	"strings"
)

// diskPrograms declares disks and file systems: formatting, partitioning, mounting.
func diskPrograms() []program {
	return []program{
		{names: []string{"wipefs"}, model: func(k *call) {
			p := parseOpts(k.args, spec{arg: "otp", long: []string{"offset", "types"}})
			if p.has("a", "all", "o", "offset") && !p.has("n", "no-act") {
				if onDevice(p.ops) {
					k.tag(TagFormatFS)
				}
				k.files(Write, p.ops, false)
			} else {
				k.files(Read, p.ops, false)
			}
		}, examples: []example{ex("wipefs -a /dev/sdb", "tag fs.format", "write /dev/sdb"), ex("wipefs /dev/sdb", "!tag fs.format", "read /dev/sdb"),
			ex("wipefs -a disk.img", "!tag fs.format", "write /home/u/proj/disk.img")}},
		{names: []string{"fdisk", "sfdisk", "cfdisk", "gdisk", "sgdisk", "parted", "blkdiscard", "cryptsetup", "zpool", "pvcreate", "vgcreate", "lvremove", "hdparm"}, model: func(k *call) {
			k.partition()

		}, examples: []example{ex("parted /dev/sdb mklabel gpt", "tag fs.format", "write /dev/sdb"), ex("fdisk -l /dev/sda", "!tag fs.format", "read /dev/sda"),
			ex("sgdisk -n 1:0:0 -t 1:ef00 disk.img", "!tag fs.format", "write /home/u/proj/disk.img"),
			ex("parted -s ~/vm.raw mklabel gpt", "!tag fs.format", "write /home/u/vm.raw"),
			ex("parted -s /dev/sdc mklabel msdos", "tag fs.format", "write /dev/sdc")}},
		{names: []string{"mount", "umount"}, model: func(k *call) {
			k.tag(TagMount)
			p := parseOpts(k.args, spec{arg: "toOLUTNB", long: []string{"types", "options", "label", "uuid", "fstab", "namespace", "source", "target"}})
			if len(p.ops) > 0 {
				k.file(Write, p.ops[len(p.ops)-1], false)
			}
		}, examples: []example{ex("mount /dev/sdb1 /mnt", "tag fs.mount", "write /mnt")}},
	}
}

func (k *call) format() {
	var devs []field
	var last *field
	for i, f := range k.args {
		if !f.known {
			devs = append(devs, f)
			continue
		}
		if strings.HasPrefix(f.val, "/dev/") {
			devs = append(devs, f)
		}
		if !strings.HasPrefix(f.val, "-") && !isDigits(f.val) {
			last = &k.args[i]
		}
	}
	if len(devs) == 0 && last != nil {
		devs = []field{*last}
	}
	if onDevice(devs) || len(devs) == 0 {
		k.tag(TagFormatFS)
	}
	k.files(Write, devs, false)
}

func (k *call) partition() {
	readOnly := false
	for _, f := range k.args {
		switch f.val {
		case "-l", "--list", "-d", "--dump", "-V", "--verify", "-p", "--print", "print", "-v", "--version", "-h", "--help", "-I", "status", "list":
			readOnly = true
		case "-s", "--show-size":
			// parted -s is script mode, not a size query
			readOnly = readOnly || k.name != "parted"
		}
	}
	var devs []field
	for _, f := range k.args {
		if !f.known || strings.HasPrefix(f.val, "/dev/") {
			devs = append(devs, f)
		}
	}
	if len(devs) == 0 {
		// an image file, not a device: a write of that file
		if files := imageFiles(k.args); len(files) > 0 {
			if readOnly {
				k.files(Read, files, false)
			} else {
				k.files(Write, files, false)
			}
			return
		}
	}
	if readOnly && k.name != "blkdiscard" {
		k.files(Read, devs, false)
		return
	}
	k.tag(TagFormatFS)
	k.files(Write, devs, false)
}

// onDevice reports whether any of fs is a device (or not known): making a
// file system on an image file in the workspace is a write of that file.
func onDevice(fs []field) bool {
	for _, f := range fs {
		if !f.known || strings.HasPrefix(f.val, "/dev/") {
			return true
		}
	}
	return false
}

// imageFiles are the operands of a partitioning tool that name files
// (disk.img, ./vm.raw), when no device is named.
func imageFiles(args []field) []field {
	var out []field
	for i, f := range args {
		if i > 0 && args[i-1].known && strings.HasPrefix(args[i-1].val, "-") && len(args[i-1].val) == 2 && strings.ContainsAny(args[i-1].val[1:], "ntcucAfbdl") {
			continue // a value of an option (sgdisk -n 1:0:0)
		}
		if f.known && !strings.HasPrefix(f.val, "-") && strings.ContainsAny(f.val, "./") && !strings.Contains(f.val, ":") {
			out = append(out, f)
		}
	}
	return out
}
