//! The vhost-user control side: [`Control`] answers one frontend connection's requests (the
//! `vhost` crate parses them) and hands running rings to the data path through [`Shared`].

use super::{Active, Shared};
use crate::port::virtq::{MemTable, RegionDesc, RingAddrs, MAX_QUEUE_SIZE, NET_HDR_LEN};
use std::fs::File;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use vhost::vhost_user::message::{
    VhostTransferStateDirection, VhostTransferStatePhase, VhostUserConfigFlags, VhostUserInflight,
    VhostUserLog, VhostUserMemoryRegion, VhostUserProtocolFeatures, VhostUserShMemConfig,
    VhostUserSharedMsg, VhostUserSingleMemoryRegion, VhostUserVirtioFeatures,
    VhostUserVringAddrFlags, VhostUserVringState,
};
use vhost::vhost_user::{Backend, Error as VuError, GpuBackend, VhostUserBackendReqHandlerMut};
use vhost::VhostUserMemoryRegionBase;
use virtio_bindings::virtio_config::VIRTIO_F_VERSION_1;
use virtio_bindings::virtio_net::{VIRTIO_NET_F_MQ, VIRTIO_NET_F_MRG_RXBUF};

/// The per-queue state the protocol sets up.
#[derive(Default)]
struct QState {
    num: u32,
    addrs: Option<(u64, u64, u64)>,
    base: u16,
    kick: bool,
    call: Option<File>,
    enabled: bool,
    running: bool,
}

/// Answers one frontend connection's vhost-user requests.
pub(super) struct Control {
    sh: Arc<Shared>,
    owned: bool,
    features: u64,
    proto: u64,
    mem: Option<Arc<MemTable>>,
    q: Vec<QState>,
}

const F_PROTOCOL: u64 = VhostUserVirtioFeatures::PROTOCOL_FEATURES.bits();

impl Control {
    pub(super) fn new(sh: Arc<Shared>) -> Control {
        let n = 2 * sh.pairs as usize;
        Control {
            sh,
            owned: false,
            features: 0,
            proto: 0,
            mem: None,
            q: (0..n).map(|_| QState::default()).collect(),
        }
    }

    fn offered(&self) -> u64 {
        let mut f = 1 << VIRTIO_F_VERSION_1 | 1 << VIRTIO_NET_F_MRG_RXBUF | F_PROTOCOL;
        if self.sh.pairs > 1 {
            f |= 1 << VIRTIO_NET_F_MQ;
        }
        f
    }

    fn index(&self, i: u32) -> Result<usize, VuError> {
        if (i as usize) < self.q.len() {
            Ok(i as usize)
        } else {
            Err(VuError::InvalidParam)
        }
    }

    /// Starts queue `i` if everything it needs is set and it is enabled, or stops it.
    fn refresh(&mut self, i: usize) {
        let q = &self.q[i];
        let want = q.kick && q.enabled && q.num > 0 && q.addrs.is_some() && self.mem.is_some();
        if q.running {
            let last = self.sh.publish(i, None);
            self.q[i].base = last;
            self.q[i].running = false;
        }
        if !want {
            return;
        }
        let (mem, q) = (self.mem.clone().expect("checked"), &self.q[i]);
        let (d, u, a) = q.addrs.expect("checked");
        let ring = match RingAddrs::new(q.num, d, a, u, |x, l| mem.uva(x, l)) {
            Ok(r) => r,
            Err(_) => {
                self.sh.counters.bad_setup.fetch_add(1, Ordering::Relaxed);
                return;
            }
        };
        let call = q.call.as_ref().and_then(|f| f.try_clone().ok());
        let mrg = self.features & (1 << VIRTIO_NET_F_MRG_RXBUF) != 0;
        let v1 = self.features & (1 << VIRTIO_F_VERSION_1) != 0;
        let act = Active {
            mem,
            ring,
            base: q.base,
            call,
            hdr_len: if mrg || v1 {
                NET_HDR_LEN
            } else {
                NET_HDR_LEN - 2
            },
            mrg,
        };
        self.sh.slots[i]
            .last_avail
            .store(q.base as u32, Ordering::Release);
        self.sh.publish(i, Some(Arc::new(act)));
        self.q[i].running = true;
    }

    /// Stops every ring (the frontend went away or reset).
    pub(super) fn stop_all(&mut self) {
        for i in 0..self.q.len() {
            if self.q[i].running {
                self.sh.publish(i, None);
            }
            self.q[i] = QState::default();
        }
        self.mem = None;
    }
}

fn unsupported(what: &'static str) -> VuError {
    VuError::InvalidOperation(what)
}

impl VhostUserBackendReqHandlerMut for Control {
    fn set_owner(&mut self) -> Result<(), VuError> {
        self.owned = true;
        Ok(())
    }

    fn reset_owner(&mut self) -> Result<(), VuError> {
        self.stop_all();
        self.owned = false;
        self.features = 0;
        Ok(())
    }

    fn reset_device(&mut self) -> Result<(), VuError> {
        self.stop_all();
        self.features = 0;
        Ok(())
    }

    fn get_features(&mut self) -> Result<u64, VuError> {
        Ok(self.offered())
    }

    fn set_features(&mut self, features: u64) -> Result<(), VuError> {
        if features & !self.offered() != 0 {
            return Err(VuError::InvalidParam);
        }
        self.features = features;
        // Without protocol features a ring is enabled from the start (vhost-user spec).
        let on = features & F_PROTOCOL == 0;
        for q in &mut self.q {
            q.enabled = on;
        }
        Ok(())
    }

    fn set_mem_table(
        &mut self,
        ctx: &[VhostUserMemoryRegion],
        files: Vec<File>,
        _postcopy: Option<bool>,
    ) -> Result<Option<Vec<VhostUserMemoryRegionBase>>, VuError> {
        let regions: Vec<RegionDesc> = ctx
            .iter()
            .map(|r| RegionDesc {
                gpa: r.guest_phys_addr,
                size: r.memory_size,
                uva: r.user_addr,
                offset: r.mmap_offset,
            })
            .collect();
        let mem = MemTable::map(&regions, files).map_err(|e| {
            self.sh.counters.bad_setup.fetch_add(1, Ordering::Relaxed);
            VuError::ReqHandlerError(std::io::Error::other(e.to_string()))
        })?;
        self.mem = Some(Arc::new(mem));
        for i in 0..self.q.len() {
            if self.q[i].running {
                self.refresh(i);
            }
        }
        Ok(None)
    }

    fn set_vring_num(&mut self, index: u32, num: u32) -> Result<(), VuError> {
        let i = self.index(index)?;
        if num == 0 || num > MAX_QUEUE_SIZE as u32 || !num.is_power_of_two() {
            return Err(VuError::InvalidParam);
        }
        self.q[i].num = num;
        Ok(())
    }

    fn set_vring_addr(
        &mut self,
        index: u32,
        _flags: VhostUserVringAddrFlags,
        descriptor: u64,
        used: u64,
        available: u64,
        _log: u64,
    ) -> Result<(), VuError> {
        let i = self.index(index)?;
        self.q[i].addrs = Some((descriptor, used, available));
        if self.q[i].running {
            self.refresh(i);
        }
        Ok(())
    }

    fn set_vring_base(&mut self, index: u32, base: u32) -> Result<(), VuError> {
        let i = self.index(index)?;
        self.q[i].base = base as u16;
        Ok(())
    }

    fn get_vring_base(&mut self, index: u32) -> Result<VhostUserVringState, VuError> {
        let i = self.index(index)?;
        // The spec: GET_VRING_BASE stops the ring.
        if self.q[i].running {
            self.q[i].base = self.sh.publish(i, None);
            self.q[i].running = false;
        }
        self.q[i].kick = false;
        Ok(VhostUserVringState::new(index, self.q[i].base as u32))
    }

    fn set_vring_kick(&mut self, index: u8, _fd: Option<File>) -> Result<(), VuError> {
        let i = self.index(index as u32)?;
        // This backend polls: the kick is only the "start" signal.
        self.q[i].kick = true;
        self.refresh(i);
        Ok(())
    }

    fn set_vring_call(&mut self, index: u8, fd: Option<File>) -> Result<(), VuError> {
        let i = self.index(index as u32)?;
        self.q[i].call = fd;
        if self.q[i].running {
            self.refresh(i);
        }
        Ok(())
    }

    fn set_vring_err(&mut self, index: u8, _fd: Option<File>) -> Result<(), VuError> {
        self.index(index as u32).map(|_| ())
    }

    fn get_protocol_features(&mut self) -> Result<VhostUserProtocolFeatures, VuError> {
        Ok(VhostUserProtocolFeatures::MQ | VhostUserProtocolFeatures::REPLY_ACK)
    }

    fn set_protocol_features(&mut self, features: u64) -> Result<(), VuError> {
        self.proto = features;
        Ok(())
    }

    fn get_queue_num(&mut self) -> Result<u64, VuError> {
        Ok(self.sh.pairs as u64 * 2)
    }

    fn set_vring_enable(&mut self, index: u32, enable: bool) -> Result<(), VuError> {
        if self.features & F_PROTOCOL == 0 {
            return Err(VuError::InactiveFeature(
                VhostUserVirtioFeatures::PROTOCOL_FEATURES,
            ));
        }
        let i = self.index(index)?;
        self.q[i].enabled = enable;
        self.refresh(i);
        Ok(())
    }

    fn get_config(
        &mut self,
        _offset: u32,
        _size: u32,
        _flags: VhostUserConfigFlags,
    ) -> Result<Vec<u8>, VuError> {
        Err(unsupported("GET_CONFIG"))
    }

    fn set_config(
        &mut self,
        _offset: u32,
        _buf: &[u8],
        _flags: VhostUserConfigFlags,
    ) -> Result<(), VuError> {
        Err(unsupported("SET_CONFIG"))
    }

    fn set_backend_req_fd(&mut self, _backend: Backend) {}

    fn set_gpu_socket(&mut self, _gpu: GpuBackend) -> Result<(), VuError> {
        Err(unsupported("GPU_SET_SOCKET"))
    }

    fn get_shared_object(&mut self, _uuid: VhostUserSharedMsg) -> Result<File, VuError> {
        Err(unsupported("GET_SHARED_OBJECT"))
    }

    fn get_inflight_fd(
        &mut self,
        _inflight: &VhostUserInflight,
    ) -> Result<(VhostUserInflight, File), VuError> {
        Err(unsupported("GET_INFLIGHT_FD"))
    }

    fn set_inflight_fd(&mut self, _inflight: &VhostUserInflight, _f: File) -> Result<(), VuError> {
        Err(unsupported("SET_INFLIGHT_FD"))
    }

    fn get_max_mem_slots(&mut self) -> Result<u64, VuError> {
        Err(unsupported("GET_MAX_MEM_SLOTS"))
    }

    fn add_mem_region(
        &mut self,
        _region: &VhostUserSingleMemoryRegion,
        _fd: File,
        _postcopy: Option<bool>,
    ) -> Result<Option<VhostUserMemoryRegionBase>, VuError> {
        Err(unsupported("ADD_MEM_REG"))
    }

    fn remove_mem_region(&mut self, _r: &VhostUserSingleMemoryRegion) -> Result<(), VuError> {
        Err(unsupported("REM_MEM_REG"))
    }

    fn set_device_state_fd(
        &mut self,
        _d: VhostTransferStateDirection,
        _p: VhostTransferStatePhase,
        _fd: File,
    ) -> Result<Option<File>, VuError> {
        Err(unsupported("SET_DEVICE_STATE_FD"))
    }

    fn check_device_state(&mut self) -> Result<(), VuError> {
        Err(unsupported("CHECK_DEVICE_STATE"))
    }

    fn get_shmem_config(&mut self) -> Result<VhostUserShMemConfig, VuError> {
        Err(unsupported("GET_SHMEM_CONFIG"))
    }

    fn set_log_base(&mut self, _log: &VhostUserLog, _file: File) -> Result<(), VuError> {
        Err(unsupported("SET_LOG_BASE"))
    }
}
