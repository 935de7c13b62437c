//! Content-centric networking (paper 003: Endo et al., P4-based CCN packet generator and the
//! Cefore router case study): the CCNx TLV codec ([`tlv`]), content stores with pluggable
//! replacement ([`cs`]), the PIT ([`pit`]), the FIB ([`fib`]), a forwarder tying them together
//! ([`forwarder`]) and the hit-ratio / forwarding-rate experiments ([`sim`]).

pub mod cs;
pub mod fib;
pub mod forwarder;
pub mod live;
pub mod pit;
pub mod sim;
pub mod tlv;
pub mod udp;

pub use cs::{AnyCs, ContentStore, Policy};
pub use fib::Fib;
pub use forwarder::{Action, Forwarder};
pub use pit::Pit;
