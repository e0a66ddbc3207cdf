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
				k.tag(TagFormatFS)
				k.files(Write, p.ops, false)
			} else {
				k.files(Read, p.ops, false)
			}
		}, examples: []example{ex("wipefs -a /dev/sdb", "tag fs.format", "write /dev/sdb"), ex("wipefs /dev/sdb", "!tag fs.format", "read /dev/sdb")}},
		{names: []string{"fdisk", "sfdisk", "cfdisk", "gdisk", "sgdisk", "parted", "blkdiscard", "cryptsetup", "zpool", "pvcreate", "vgcreate", "lvremove", "hdparm"}, model: func(k *call) {
			k.partition()

		}, examples: []example{ex("parted /dev/sdb mklabel gpt", "tag fs.format", "write /dev/sdb"), ex("fdisk -l /dev/sda", "!tag fs.format", "read /dev/sda")}},
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
	k.tag(TagFormatFS)
	k.files(Write, devs, false)
}

func (k *call) partition() {
	readOnly := false
	for _, f := range k.args {
		switch f.val {
		case "-l", "--list", "-d", "--dump", "-V", "--verify", "-p", "--print", "print", "-s", "--show-size", "-v", "--version", "-h", "--help", "-I", "status", "list":
			readOnly = true
		}
	}
	var devs []field
	for _, f := range k.args {
		if !f.known || strings.HasPrefix(f.val, "/dev/") {
			devs = append(devs, f)
		}
	}
	if readOnly && k.name != "blkdiscard" {
		k.files(Read, devs, false)
		return
	}
	k.tag(TagFormatFS)
	k.files(Write, devs, false)
}
