#!/usr/bin/env python3
"""Write the hand-made hwloc XML fixtures of share/topo/ (run from the source root).

hwloc's own discovery writes XML like this (`lstopo --of xml`); these machines are laid out
by hand after the public descriptions of their boards, with fewer cores than the real ones
(the core count plays no part in the model). Each Machine object carries an info
"GdcFixture" that says what it is. The minimalistic XML parser that hwloc falls back to
without libxml2 accepts no comments, so the description lives in that info.

    python3 tests/topo/make-fixtures.py     # rewrites share/topo/{dgx-h100,pcie-4gpu,workstation-1gpu}.xml
"""
import os
import sys


def bitmap(bits):
    """hwloc's bitmap text: 32-bit words, most significant first, comma-separated."""
    value = 0
    for b in bits:
        value |= 1 << b
    words = []
    while True:
        words.append(value & 0xFFFFFFFF)
        value >>= 32
        if value == 0:
            break
    return ",".join("0x%08x" % w for w in reversed(words))


class Xml:
    def __init__(self):
        self.lines = []
        self.depth = 0
        self.gp = 0

    def gp_index(self):
        self.gp += 1
        return self.gp

    def attrs(self, attrs):
        return "".join(' %s="%s"' % (k, v) for k, v in attrs)

    def open(self, attrs):
        self.lines.append("  " * self.depth + "<object%s>" % self.attrs(attrs))
        self.depth += 1

    def close(self):
        self.depth -= 1
        self.lines.append("  " * self.depth + "</object>")

    def leaf(self, attrs):
        self.lines.append("  " * self.depth + "<object%s/>" % self.attrs(attrs))

    def info(self, name, value):
        self.lines.append("  " * self.depth + '<info name="%s" value="%s"/>' % (name, value))


class Machine:
    """Packages x cores x 2 hardware threads, one NUMA node per package, PCI trees per package."""

    def __init__(self, host, packages, cores, cpu_model, mem_per_numa, description):
        self.host, self.packages, self.cores = host, packages, cores
        self.cpu_model, self.mem, self.description = cpu_model, mem_per_numa, description
        self.pci = {p: [] for p in range(packages)}  # package -> list of host bridges
        self.next_bus = 0x10

    def pus_of_core(self, package, core):
        first = package * self.cores + core
        return [first, first + self.packages * self.cores]  # Linux numbering of SMT siblings

    def pus_of_package(self, package):
        return [pu for c in range(self.cores) for pu in self.pus_of_core(package, c)]

    def host_bridge(self, package, tree):
        """tree: a list of items; an item is ('switch', [items]) or ('dev', dev-dict)."""
        self.pci[package].append(tree)

    def write(self, path):
        x = Xml()
        all_pus = [pu for p in range(self.packages) for pu in self.pus_of_package(p)]
        all_numa = list(range(self.packages))
        cs, ns = bitmap(all_pus), bitmap(all_numa)
        x.lines += ['<?xml version="1.0" encoding="UTF-8"?>', '<!DOCTYPE topology SYSTEM "hwloc2.dtd">',
                    '<topology version="2.0">']
        x.depth = 1
        x.open([("type", "Machine"), ("os_index", 0), ("cpuset", cs), ("complete_cpuset", cs),
                ("allowed_cpuset", cs), ("nodeset", ns), ("complete_nodeset", ns), ("allowed_nodeset", ns),
                ("gp_index", x.gp_index())])
        x.info("Backend", "Linux")
        x.info("OSName", "Linux")
        x.info("HostName", self.host)
        x.info("Architecture", "x86_64")
        x.info("hwlocVersion", "2.9.0")
        x.info("GdcFixture", self.description)
        for p in range(self.packages):
            pcs, pns = bitmap(self.pus_of_package(p)), bitmap([p])
            x.open([("type", "Package"), ("os_index", p), ("cpuset", pcs), ("complete_cpuset", pcs),
                    ("nodeset", pns), ("complete_nodeset", pns), ("gp_index", x.gp_index())])
            x.info("CPUModel", self.cpu_model)
            x.leaf([("type", "NUMANode"), ("os_index", p), ("cpuset", pcs), ("complete_cpuset", pcs),
                    ("nodeset", pns), ("complete_nodeset", pns), ("gp_index", x.gp_index()),
                    ("local_memory", self.mem)])
            for c in range(self.cores):
                pus = self.pus_of_core(p, c)
                ccs = bitmap(pus)
                x.open([("type", "Core"), ("os_index", c), ("cpuset", ccs), ("complete_cpuset", ccs),
                        ("nodeset", pns), ("complete_nodeset", pns), ("gp_index", x.gp_index())])
                for pu in pus:
                    pucs = bitmap([pu])
                    x.leaf([("type", "PU"), ("os_index", pu), ("cpuset", pucs), ("complete_cpuset", pucs),
                            ("nodeset", pns), ("complete_nodeset", pns), ("gp_index", x.gp_index())])
                x.close()
            for tree in self.pci[p]:
                self.write_host_bridge(x, tree)
            x.close()
        x.close()
        x.depth = 0
        x.lines.append("</topology>")
        with open(path, "w") as f:
            f.write("\n".join(x.lines) + "\n")

    # PCI: bus numbers are given depth first, as firmware does.
    def write_host_bridge(self, x, tree):
        first = self.next_bus
        # root port: one bridge per tree on bus `first`, its secondary bus next
        self.next_bus += 1
        start = self.next_bus
        body = []
        sub = self.layout(tree, start, body)
        x.open([("type", "Bridge"), ("gp_index", x.gp_index()), ("bridge_type", "0-1"), ("depth", 0),
                ("bridge_pci", "0000:[%02x-%02x]" % (first, sub))])
        # the CPU's root port
        x.open([("type", "Bridge"), ("gp_index", x.gp_index()), ("bridge_type", "1-1"), ("depth", 1),
                ("bridge_pci", "0000:[%02x-%02x]" % (start, sub)), ("pci_busid", "0000:%02x:01.0" % first),
                ("pci_type", "0604 [8086:352a] [8086:0000] 04"), ("pci_link_speed", tree["root_speed"])])
        self.emit(x, body, 2)
        x.close()
        x.close()
        self.next_bus = sub + 1

    def layout(self, tree, bus, body):
        """Place tree's items on `bus`; returns the highest bus number used below."""
        sub = bus
        dev = 0
        if tree["kind"] == "switch":
            # upstream port on `bus`, downstream ports on bus+1, one per item, each with a bus below
            up_bus = bus
            down_bus = bus + 1
            sub = down_bus
            children = []
            for item in tree["items"]:
                sub += 1
                child_bus = sub
                inner = []
                sub = self.layout(item, child_bus, inner)
                children.append(("down", "0000:%02x:%02x.0" % (down_bus, len(children)), child_bus, sub, inner))
            body.append(("up", "0000:%02x:00.0" % up_bus, down_bus, sub, children, tree["speed"]))
        else:
            body.append(("dev", "0000:%02x:00.0" % bus, tree))
        return sub

    def emit(self, x, body, depth):
        for entry in body:
            if entry[0] == "up":
                _, busid, down_bus, sub, children, speed = entry
                x.open([("type", "Bridge"), ("gp_index", x.gp_index()), ("bridge_type", "1-1"), ("depth", depth),
                        ("bridge_pci", "0000:[%02x-%02x]" % (down_bus, sub)), ("pci_busid", busid),
                        ("pci_type", "0604 [1000:c030] [1000:a064] b0"), ("pci_link_speed", speed)])
                for _, dbusid, child_bus, csub, inner in children:
                    x.open([("type", "Bridge"), ("gp_index", x.gp_index()), ("bridge_type", "1-1"),
                            ("depth", depth + 1), ("bridge_pci", "0000:[%02x-%02x]" % (child_bus, csub)),
                            ("pci_busid", dbusid), ("pci_type", "0604 [1000:c030] [1000:a064] b0"),
                            ("pci_link_speed", speed)])
                    self.emit(x, inner, depth + 2)
                    x.close()
                x.close()
            else:
                self.emit_device(x, entry[1], entry[2])

    def emit_device(self, x, busid, d):
        attrs = [("type", "PCIDev"), ("gp_index", x.gp_index())]
        if "subtype" in d:
            attrs.append(("subtype", d["subtype"]))
        attrs += [("pci_busid", busid), ("pci_type", d["pci_type"]), ("pci_link_speed", d["speed"])]
        if not d.get("osdevs"):
            x.leaf(attrs)
            return
        x.open(attrs)
        for osdev in d["osdevs"]:
            oattrs = [("type", "OSDev"), ("gp_index", x.gp_index()), ("name", osdev["name"])]
            if "subtype" in osdev:
                oattrs.append(("subtype", osdev["subtype"]))
            oattrs.append(("osdev_type", osdev["type"]))
            if osdev.get("infos"):
                x.open(oattrs)
                for k, v in osdev["infos"]:
                    x.info(k, v)
                x.close()
            else:
                x.leaf(oattrs)
        x.close()


# hwloc 2.x OS device types
OSDEV_BLOCK, OSDEV_GPU, OSDEV_NETWORK, OSDEV_OPENFABRICS, OSDEV_COPROC = 0, 1, 2, 3, 5
GEN5_X16, GEN4_X16, GEN3_X16, GEN4_X4 = "63.015385", "31.507692", "15.753846", "7.876923"


def nvidia_gpu(index, pci_ids, model, mem_kb, speed, drm=False):
    osdevs = []
    if drm:
        osdevs.append({"name": "card%d" % index, "type": OSDEV_GPU})
    osdevs.append({"name": "cuda%d" % index, "type": OSDEV_COPROC, "subtype": "CUDA",
                   "infos": [("Backend", "CUDA"), ("GPUVendor", "NVIDIA Corporation"), ("GPUModel", model),
                             ("CUDAGlobalMemorySize", mem_kb)]})
    osdevs.append({"name": "nvml%d" % index, "type": OSDEV_GPU,
                   "infos": [("Backend", "NVML"), ("GPUVendor", "NVIDIA Corporation"), ("GPUModel", model)]})
    return {"kind": "dev", "pci_type": pci_ids, "speed": speed, "osdevs": osdevs}


def connectx(index, pci_ids, netdev, speed, guid):
    return {"kind": "dev", "pci_type": pci_ids, "speed": speed, "osdevs": [
        {"name": netdev, "type": OSDEV_NETWORK, "infos": [("Address", "00:00:10:29:fe:80:00:00:00:00:00:00:%s" % guid)]},
        {"name": "mlx5_%d" % index, "type": OSDEV_OPENFABRICS,
         "infos": [("NodeGUID", "a088:c203:00%s:0000" % guid[:2]), ("SysImageGUID", "a088:c203:00%s:0000" % guid[:2]),
                   ("Port1State", "4"), ("Port1LID", "0x%x" % (index + 1)), ("Port1LMC", "0")]}]}


def ethernet(netdev, pci_ids, speed, mac):
    return {"kind": "dev", "pci_type": pci_ids, "speed": speed,
            "osdevs": [{"name": netdev, "type": OSDEV_NETWORK, "infos": [("Address", mac)]}]}


def nvme(name, speed):
    return {"kind": "dev", "pci_type": "0108 [144d:a80a] [144d:a801] 00", "speed": speed,
            "osdevs": [{"name": name, "type": OSDEV_BLOCK}]}


def switch(items, speed):
    return {"kind": "switch", "items": items, "speed": speed}


def root(item, speed):
    item = dict(item)
    item["root_speed"] = speed
    return item


def dgx_h100(path):
    m = Machine("dgx-h100", 2, 8, "Intel(R) Xeon(R) Platinum 8480C", 1081101176832,
                "DGX-H100-like: 2 sockets, 8 H100 SXM GPUs behind 4 PCIe Gen5 switches with a ConnectX-7 "
                "next to each GPU (mlx5_0-7, InfiniBand), 4 NVSwitch, one management Ethernet port; "
                "cores trimmed to 8 per socket; written by hand (gdc tests/topo/make-fixtures.py)")
    h100 = "0302 [10de:2330] [10de:16c1] a1"
    cx7 = "0207 [15b3:1021] [15b3:0041] 00"
    gpu = 0
    for package in (0, 1):
        for _ in range(2):  # two PCIe switches per socket, each with 2 GPUs and 2 NICs
            items = [nvidia_gpu(gpu, h100, "NVIDIA H100 80GB HBM3", 83886080, GEN5_X16),
                     connectx(gpu, cx7, "ibp%ds0" % (gpu + 1), GEN5_X16, "%02x" % (0x20 + gpu)),
                     nvidia_gpu(gpu + 1, h100, "NVIDIA H100 80GB HBM3", 83886080, GEN5_X16),
                     connectx(gpu + 1, cx7, "ibp%ds0" % (gpu + 2), GEN5_X16, "%02x" % (0x21 + gpu))]
            m.host_bridge(package, root(switch(items, GEN5_X16), GEN5_X16))
            gpu += 2
    m.host_bridge(0, root(ethernet("eno1", "0200 [8086:1563] [8086:35d4] 01", GEN3_X16, "7c:c2:55:00:00:01"), GEN3_X16))
    m.host_bridge(1, root(switch([nvme("nvme0n1", GEN4_X4), nvme("nvme1n1", GEN4_X4)], GEN4_X16), GEN4_X16))
    nvswitch = {"kind": "dev", "subtype": "NVSwitch", "pci_type": "0680 [10de:22a3] [10de:1796] a1", "speed": GEN4_X4}
    m.host_bridge(1, root(switch([nvswitch, nvswitch, nvswitch, nvswitch], GEN4_X16), GEN4_X16))
    m.write(path)


def pcie_4gpu(path):
    m = Machine("pcie-4gpu", 2, 8, "Intel(R) Xeon(R) Gold 6338", 270582939648,
                "PCIe-only 4-GPU server: 2 sockets, A100 PCIe GPUs 0-1 on socket 0 and 2-3 on socket 1, each on "
                "its own root port, no NVLink; one ConnectX-6 (mlx5_0, InfiniBand) on socket 0, so GPUs 2 and 3 "
                "have no NIC on their NUMA node; written by hand (gdc tests/topo/make-fixtures.py)")
    a100 = "0302 [10de:20f1] [10de:145f] a1"
    for package, gpus in ((0, (0, 1)), (1, (2, 3))):
        for g in gpus:
            m.host_bridge(package, root(nvidia_gpu(g, a100, "NVIDIA A100-PCIE-40GB", 41943040, GEN4_X16), GEN4_X16))
        if package == 0:
            m.host_bridge(0, root(connectx(0, "0207 [15b3:101b] [15b3:0006] 00", "ib0", GEN4_X16, "30"), GEN4_X16))
            m.host_bridge(0, root(ethernet("eno1", "0200 [8086:1521] [8086:0001] 01", GEN3_X16, "3c:ec:ef:00:00:01"),
                                  GEN3_X16))
    m.write(path)


def workstation(path):
    m = Machine("workstation", 1, 8, "AMD Ryzen 9 7950X 16-Core Processor", 66571993088,
                "single-GPU workstation: 1 socket, one GeForce RTX 4090 (x16 Gen4, 256 MiB BAR1 unless Resizable "
                "BAR is on), NVMe, 2.5G Ethernet, no RDMA NIC; cores trimmed to 8; written by hand "
                "(gdc tests/topo/make-fixtures.py)")
    m.host_bridge(0, root(nvidia_gpu(0, "0300 [10de:2684] [1043:889c] a1", "NVIDIA GeForce RTX 4090", 25153536,
                                     GEN4_X16, drm=True), GEN4_X16))
    m.host_bridge(0, root(nvme("nvme0n1", GEN4_X4), GEN4_X4))
    m.host_bridge(0, root(ethernet("enp5s0", "0200 [8086:125c] [1043:87d2] 04", "0.492308", "9c:6b:00:00:00:01"),
                          "0.492308"))
    m.write(path)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "share/topo"
    dgx_h100(os.path.join(out, "dgx-h100.xml"))
    pcie_4gpu(os.path.join(out, "pcie-4gpu.xml"))
    workstation(os.path.join(out, "workstation-1gpu.xml"))


if __name__ == "__main__":
    main()
